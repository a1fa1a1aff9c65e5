import type { ImageRow, ListedImage } from './images-repository';
import type { LinkSigner } from './link-signer';

/** Ready-to-paste forms of an image's address (an extension of the contract's fields). */
export interface ImageLinks {
  url: string;
  thumbnail: string;
  markdown: string;
  html: string;
  bbcode: string;
  /** A page that asks before it moves the image to the bin (ShareX's DeletionURL): a bare GET deletes nothing. */
  delete: string;
}

/** The upload answer (`data` of upload), field order as in the contract, then the extension. */
export interface UploadResult {
  id: number;
  url: string;
  thumb_url: string;
  original_name: string;
  file_size: number;
  width: number;
  height: number;
  links: ImageLinks;
}

export interface ListItem {
  id: number;
  original_name: string;
  url: string;
  thumb_url: string;
  file_size: number;
  create_time: string;
  /** Only when the page was asked for with `links=1`. */
  links?: ImageLinks;
  /** With `links`: when the image moves into the bin by itself (ISO 8601, UTC); null: never. */
  expires_at?: string | null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * Markdown alt text: HTML-escaped, since Markdown renderers pass inline HTML through (even inside an
 * image's description) and decode character references back into the alt text; then brackets
 * escaped (names hold no backslash or line break: see cleanOriginalName).
 */
function markdownAlt(text: string): string {
  return escapeHtml(text).replace(/[[\]]/g, (char) => `\\${char}`);
}

/** Every zone offset is a multiple of 15 minutes and changes at a local hour or half hour: at a UTC quarter hour. */
const QUARTER_HOUR_MS = 15 * 60 * 1000;
const MAX_CACHED_OFFSETS = 10_000;

/**
 * `YYYY-MM-DD HH:MM:SS` in the configured zone. Intl's formatToParts is slow to run twenty times per
 * list page, so the zone's offset is asked once per UTC quarter hour (within which it cannot change)
 * and the fields are taken from the shifted time.
 */
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
  const offsets = new Map<number, number>();
  const offsetAt = (quarter: number): number => {
    let offset = offsets.get(quarter);
    if (offset === undefined) {
      const at = new Date(quarter * QUARTER_HOUR_MS);
      const p = Object.fromEntries(parts.formatToParts(at).map((part) => [part.type, part.value]));
      offset = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) - at.getTime();
      if (offsets.size >= MAX_CACHED_OFFSETS) offsets.clear();
      offsets.set(quarter, offset);
    }
    return offset;
  };
  const two = (n: number) => (n < 10 ? `0${n}` : String(n));
  return (date) => {
    const ms = date.getTime();
    const local = new Date(ms + offsetAt(Math.floor(ms / QUARTER_HOUR_MS)));
    const year = local.getUTCFullYear();
    const yyyy = year >= 0 && year < 10000 ? String(year).padStart(4, '0') : String(year);
    return `${yyyy}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
  };
}

/** How images are shown to clients: absolute URLs, signed thumbnail URLs, times in the zone. */
export function createImageViews(options: { publicBaseUrl: string; timeZone: string; signer: LinkSigner }) {
  const formatTime = createTimeFormatter(options.timeZone);
  const imageUrl = (storageKey: string) => `${options.publicBaseUrl}/i/${storageKey}`;
  const thumbUrl = (id: number) => `${options.publicBaseUrl}/api/thumb.php?id=${id}&sig=${options.signer.thumb.sign(id)}`;
  const links = (image: Pick<ImageRow, 'id' | 'storageKey' | 'originalName' | 'deletionNonce'>): ImageLinks => {
    const url = imageUrl(image.storageKey);
    return {
      url,
      thumbnail: thumbUrl(image.id),
      markdown: `![${markdownAlt(image.originalName)}](${url})`,
      html: `<img src="${escapeHtml(url)}" alt="${escapeHtml(image.originalName)}">`,
      bbcode: `[img]${url}[/img]`,
      delete: `${options.publicBaseUrl}/api/delete.php?id=${image.id}&sig=${options.signer.deletion.sign(image.id, image.deletionNonce)}`,
    };
  };

  /**
   * A list item: the contract's fields. Its links are left to listItemWithLinks (`links=1`): they
   * repeat the image's address five times and sign two URLs, and a page of twenty items is three
   * times the bytes with them (16.8 against 5.4 KB), for links a client shows one image at a time.
   */
  const listItem = (image: ListedImage): ListItem => ({
    id: image.id,
    original_name: image.originalName,
    url: imageUrl(image.storageKey),
    thumb_url: thumbUrl(image.id),
    file_size: image.fileSize,
    create_time: formatTime(image.createdAt),
  });

  return {
    formatTime,
    imageUrl,
    links,
    thumbUrl,
    /** The thumbnail of a binned image for its owner's bin list: its own signature, dead after a restore or purge. */
    binThumbUrl: (id: number, deletedAt: Date) => `${options.publicBaseUrl}/api/thumb.php?id=${id}&bin=1&sig=${options.signer.binThumb.sign(id, deletedAt)}`,

    uploadResult(image: Pick<ImageRow, 'id' | 'storageKey' | 'originalName' | 'fileSize' | 'width' | 'height' | 'deletionNonce'>): UploadResult {
      return {
        id: image.id,
        url: imageUrl(image.storageKey),
        thumb_url: thumbUrl(image.id),
        original_name: image.originalName,
        file_size: image.fileSize,
        width: image.width,
        height: image.height,
        links: links(image),
      };
    },

    listItem,

    /** A list item and its links (`links=1`). */
    listItemWithLinks(image: ListedImage): ListItem {
      return { ...listItem(image), links: links(image), expires_at: image.expiresAt ? image.expiresAt.toISOString() : null };
    },
  };
}

export type ImageViews = ReturnType<typeof createImageViews>;
