import type { ThumbSigner } from '../thumbnails/thumb-signer';
import type { ImageRow } from './images-repository';

/** The upload answer (`data` of upload), field order as in the contract. */
export interface UploadResult {
  id: number;
  url: string;
  thumb_url: string;
  original_name: string;
  file_size: number;
  width: number;
  height: number;
}

export interface ListItem {
  id: number;
  original_name: string;
  url: string;
  thumb_url: string;
  file_size: number;
  create_time: string;
}

/** `YYYY-MM-DD HH:MM:SS` in the configured zone. */
export function createTimeFormatter(timeZone: string): (date: Date) => string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  return (date) => {
    const p = Object.fromEntries(parts.formatToParts(date).map((part) => [part.type, part.value]));
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
}

/** How images are shown to clients: absolute URLs, signed thumbnail URLs, times in the zone. */
export function createImageViews(options: { publicBaseUrl: string; timeZone: string; signer: ThumbSigner }) {
  const formatTime = createTimeFormatter(options.timeZone);
  const imageUrl = (storageKey: string) => `${options.publicBaseUrl}/i/${storageKey}`;
  const thumbUrl = (id: number) => `${options.publicBaseUrl}/api/thumb.php?id=${id}&sig=${options.signer.sign(id)}`;

  return {
    formatTime,

    uploadResult(image: Pick<ImageRow, 'id' | 'storageKey' | 'originalName' | 'fileSize' | 'width' | 'height'>): UploadResult {
      return {
        id: image.id,
        url: imageUrl(image.storageKey),
        thumb_url: thumbUrl(image.id),
        original_name: image.originalName,
        file_size: image.fileSize,
        width: image.width,
        height: image.height,
      };
    },

    listItem(image: ImageRow): ListItem {
      return {
        id: image.id,
        original_name: image.originalName,
        url: imageUrl(image.storageKey),
        thumb_url: thumbUrl(image.id),
        file_size: image.fileSize,
        create_time: formatTime(image.createdAt),
      };
    },
  };
}

export type ImageViews = ReturnType<typeof createImageViews>;
