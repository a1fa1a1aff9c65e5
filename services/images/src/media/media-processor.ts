import fs from 'node:fs/promises';
import sharp, { type Metadata, type SharpOptions } from 'sharp';

export const MAX_INPUT_PIXELS = 50_000_000;
export const THUMBNAIL_BOX = 400;

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'tiff';

export interface ImageFacts {
  format: ImageFormat;
  extension: string;
  mimeType: string;
  /** As displayed, i.e. after applying EXIF orientation. */
  width: number;
  height: number;
  animated: boolean;
}

export type MediaFailure = 'unsupported' | 'too-many-pixels' | 'corrupt';

export class MediaError extends Error {
  constructor(
    readonly failure: MediaFailure,
    message: string,
  ) {
    super(message);
    this.name = 'MediaError';
  }
}

const FORMAT_DETAILS: Record<ImageFormat, { extension: string; mimeType: string }> = {
  jpeg: { extension: 'jpg', mimeType: 'image/jpeg' },
  png: { extension: 'png', mimeType: 'image/png' },
  gif: { extension: 'gif', mimeType: 'image/gif' },
  webp: { extension: 'webp', mimeType: 'image/webp' },
  avif: { extension: 'avif', mimeType: 'image/avif' },
  tiff: { extension: 'tiff', mimeType: 'image/tiff' },
};

export function mimeTypeForFormat(format: string): string {
  return FORMAT_DETAILS[format as ImageFormat]?.mimeType ?? 'application/octet-stream';
}

/** Formats a browser can show directly, so the original may stand in for its thumbnail. */
const BROWSER_FORMATS = new Set<ImageFormat>(['jpeg', 'png', 'gif', 'webp', 'avif']);

/**
 * Cheap signature check before libvips sees the bytes, so only the six accepted container formats
 * are ever parsed (SVG/XML, PDF and the like never reach a decoder).
 */
function hasAcceptedSignature(head: Buffer): boolean {
  const ascii = (start: number, end: number) => head.subarray(start, end).toString('latin1');
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return true;
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return true;
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return true;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return true;
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') return true;
  if (ascii(4, 8) === 'ftyp') return true; // ISO-BMFF: sharp's metadata then tells AVIF from HEIC
  return false;
}

async function readHead(filePath: string): Promise<Buffer> {
  const handle = await fs.open(filePath, 'r');
  try {
    const head = Buffer.alloc(32);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export function createMediaProcessor() {
  // Decoded pixels are not reused between uploads; caching them only grows memory.
  sharp.cache(false);

  const inputOptions: SharpOptions = {
    // Refuse decompression bombs before libvips allocates the pixels (50 MP, per frame).
    limitInputPixels: MAX_INPUT_PIXELS,
    // A truncated or damaged file is refused instead of being stored half-grey.
    failOn: 'truncated',
    // Only the first frame of an animation is ever decoded (thumbnail = first frame).
    pages: 1,
  };

  return {
    /** Decides the type from the bytes and reads the header; does not decode the pixels. */
    async inspect(filePath: string): Promise<ImageFacts> {
      if (!hasAcceptedSignature(await readHead(filePath))) throw new MediaError('unsupported', 'signature not accepted');
      let metadata: Metadata;
      try {
        // The header is read without the pixel limit so an oversized image gets its own answer.
        metadata = await sharp(filePath, { ...inputOptions, limitInputPixels: false }).metadata();
      } catch (error) {
        const text = (error as Error).message;
        throw new MediaError(/unsupported image format/i.test(text) ? 'unsupported' : 'corrupt', text);
      }
      let format: ImageFormat | undefined;
      if (metadata.format === 'heif') format = metadata.compression === 'av1' ? 'avif' : undefined;
      else if (metadata.format && metadata.format in FORMAT_DETAILS) format = metadata.format as ImageFormat;
      if (!format) throw new MediaError('unsupported', `format ${metadata.format ?? 'unknown'}`);

      const storedWidth = metadata.width ?? 0;
      const storedHeight = metadata.pageHeight ?? metadata.height ?? 0;
      if (storedWidth < 1 || storedHeight < 1) throw new MediaError('corrupt', 'no dimensions');
      if (storedWidth * storedHeight > MAX_INPUT_PIXELS) throw new MediaError('too-many-pixels', `${storedWidth}x${storedHeight}`);
      // EXIF orientations 5-8 turn the picture by 90°, so displayed width and height swap.
      const turned = (metadata.orientation ?? 1) >= 5;
      return {
        format,
        ...FORMAT_DETAILS[format],
        width: turned ? storedHeight : storedWidth,
        height: turned ? storedWidth : storedHeight,
        animated: (metadata.pages ?? 1) > 1,
      };
    },

    /**
     * Decodes the whole first frame (which is what proves the file is intact) into a WebP that fits
     * 400×400, upright per EXIF, never upscaled. Returns null when the original should serve as its
     * own thumbnail because it is already small, browser-viewable and not bigger in bytes.
     */
    async makeThumbnail(filePath: string, facts: ImageFacts, originalBytes: number): Promise<Buffer | null> {
      let thumbnail: Buffer;
      try {
        thumbnail = await sharp(filePath, inputOptions)
          .rotate()
          .resize(THUMBNAIL_BOX, THUMBNAIL_BOX, { fit: 'inside', withoutEnlargement: true })
          .webp({ quality: 80 })
          .toBuffer();
      } catch (error) {
        const text = (error as Error).message;
        throw new MediaError(/pixel limit/i.test(text) ? 'too-many-pixels' : 'corrupt', text);
      }
      const originalFits = facts.width <= THUMBNAIL_BOX && facts.height <= THUMBNAIL_BOX;
      const originalIsEnough = originalFits && !facts.animated && BROWSER_FORMATS.has(facts.format) && originalBytes <= thumbnail.length;
      return originalIsEnough ? null : thumbnail;
    },
  };
}

export type MediaProcessor = ReturnType<typeof createMediaProcessor>;
