import fs from 'node:fs/promises';
import sharp, { type Metadata, type SharpOptions } from 'sharp';
import { MalformedContainerError, stripMetadataBytes, stripMetadataFile } from './metadata-stripper';

export const MAX_INPUT_PIXELS = 50_000_000;
export const THUMBNAIL_BOX = 400;

/** What uploads may be; `tiff` and `heic` are stored as a rendition a browser can show (see prepare). */
export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'tiff' | 'heic';

export interface ImageFacts {
  format: ImageFormat;
  extension: string;
  mimeType: string;
  /** As displayed, i.e. after applying EXIF orientation. */
  width: number;
  height: number;
  animated: boolean;
  /** EXIF, XMP or IPTC present (as libvips reads them). */
  hasMetadata: boolean;
}

/** An image as the media steps take it: the path of a file, or the bytes themselves (an upload received into memory). */
export type ImageInput = string | Buffer;

/** What to store: the upload itself, or a copy without its metadata, or a rendition (a file). */
export interface PreparedImage {
  input: ImageInput;
  size: number;
  format: ImageFormat;
  extension: string;
  mimeType: string;
}

export type MediaFailure = 'unsupported' | 'too-many-pixels' | 'corrupt' | 'heic-undecodable';

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
  heic: { extension: 'heic', mimeType: 'image/heic' },
};

/** The Content-Type of a stored file's extension (as its URL ends); octet-stream for anything else. */
export function mimeTypeOfExtension(extension: string): string {
  return Object.values(FORMAT_DETAILS).find((details) => details.extension === extension)?.mimeType ?? 'application/octet-stream';
}

/** The stored format a type names: a format (jpeg), an extension (jpg) or a MIME type (image/jpeg), any case; undefined for none. */
export function formatOfType(type: string): ImageFormat | undefined {
  const wanted = type.trim().toLowerCase();
  const found = Object.entries(FORMAT_DETAILS).find(([format, details]) => wanted === format || wanted === details.extension || wanted === details.mimeType);
  return found?.[0] as ImageFormat | undefined;
}

/** HEIC needs an HEVC decoder, which libvips has only when built with one (sharp's prebuilt one is not). */
export function canDecodeHeic(): boolean {
  return sharp.format.heif?.input.fileSuffix?.includes('.heic') ?? false;
}

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

/** A libvips decode failure as a refusal. */
function decodeFailure(error: unknown): MediaError {
  const text = (error as Error).message;
  return new MediaError(/pixel limit/i.test(text) ? 'too-many-pixels' : 'corrupt', text);
}

async function readHead(input: ImageInput): Promise<Buffer> {
  if (Buffer.isBuffer(input)) return input.subarray(0, 32);
  const handle = await fs.open(input, 'r');
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
    async inspect(input: ImageInput): Promise<ImageFacts> {
      if (!hasAcceptedSignature(await readHead(input))) throw new MediaError('unsupported', 'signature not accepted');
      let metadata: Metadata;
      try {
        // The header is read without the pixel limit so an oversized image gets its own answer.
        metadata = await sharp(input, { ...inputOptions, limitInputPixels: false }).metadata();
      } catch (error) {
        const text = (error as Error).message;
        throw new MediaError(/unsupported image format/i.test(text) ? 'unsupported' : 'corrupt', text);
      }
      let format: ImageFormat | undefined;
      if (metadata.format === 'heif') format = metadata.compression === 'av1' ? 'avif' : metadata.compression === 'hevc' ? 'heic' : undefined;
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
        hasMetadata: Boolean(metadata.exif || metadata.xmp || metadata.iptc),
      };
    },

    /**
     * The file to store for an inspected upload. Unless `keepMetadata`, personal metadata goes:
     * JPEG, PNG, WebP and GIF are copied without it, byte for byte otherwise (no re-encoding, no
     * quality lost; metadata-stripper.ts); AVIF carrying EXIF/XMP is re-encoded (its container has
     * no cheap way to drop them). TIFF is stored as a lossless PNG and HEIC as a JPEG, which
     * browsers show (both upright, colour profile kept). Orientation and the ICC profile survive
     * every path. A copy of bytes in memory stays in memory; a copy of a file, and a rendition, go to
     * a new file at `tempPath()`.
     */
    async prepare(input: ImageInput, facts: ImageFacts, options: { keepMetadata: boolean; tempPath: () => string }): Promise<PreparedImage> {
      const size = Buffer.isBuffer(input) ? input.length : (await fs.stat(input)).size;
      const original = { input, size, format: facts.format, extension: facts.extension, mimeType: facts.mimeType };
      const rendition = async (format: 'png' | 'jpeg' | 'avif'): Promise<PreparedImage> => {
        const target = options.tempPath();
        let pipeline = sharp(input, inputOptions).rotate();
        pipeline = options.keepMetadata ? pipeline.keepMetadata() : pipeline.keepIccProfile();
        if (format === 'png') pipeline = pipeline.png({ compressionLevel: 6 });
        else if (format === 'jpeg') pipeline = pipeline.jpeg({ quality: 92, chromaSubsampling: '4:4:4' });
        else pipeline = pipeline.avif({ quality: 80 });
        let info;
        try {
          info = await pipeline.toFile(target);
        } catch (error) {
          throw decodeFailure(error);
        }
        return { input: target, size: info.size, format, ...FORMAT_DETAILS[format] };
      };

      switch (facts.format) {
        case 'tiff':
          return rendition('png');
        case 'heic':
          if (!canDecodeHeic()) throw new MediaError('heic-undecodable', 'no HEVC decoder in libvips');
          return rendition('jpeg');
        case 'avif':
          return facts.hasMetadata && !options.keepMetadata ? rendition('avif') : original;
        default: {
          if (options.keepMetadata) return original;
          try {
            if (Buffer.isBuffer(input)) {
              const stripped = await stripMetadataBytes(facts.format, input);
              return stripped === null ? original : { ...original, input: stripped, size: stripped.length };
            }
            let target: string | undefined;
            const written = await stripMetadataFile(facts.format, input, () => (target = options.tempPath()));
            return written === null || target === undefined ? original : { ...original, input: target, size: written };
          } catch (error) {
            if (error instanceof MalformedContainerError) throw new MediaError('corrupt', error.message);
            throw error;
          }
        }
      }
    },

    /**
     * Decodes the whole first frame (which is what proves the file is intact) into a WebP that fits
     * 400×400, upright per EXIF, never upscaled. Returns null when the original should serve as its
     * own thumbnail because it is already small, browser-viewable and not bigger in bytes.
     */
    async makeThumbnail(input: ImageInput, facts: Pick<ImageFacts, 'format' | 'width' | 'height' | 'animated'>, originalBytes: number): Promise<Buffer | null> {
      let thumbnail: Buffer;
      try {
        thumbnail = await sharp(input, inputOptions)
          .rotate()
          .resize(THUMBNAIL_BOX, THUMBNAIL_BOX, { fit: 'inside', withoutEnlargement: true })
          .webp({ quality: 80 })
          .toBuffer();
      } catch (error) {
        throw decodeFailure(error);
      }
      const originalFits = facts.width <= THUMBNAIL_BOX && facts.height <= THUMBNAIL_BOX;
      const originalIsEnough = originalFits && !facts.animated && BROWSER_FORMATS.has(facts.format) && originalBytes <= thumbnail.length;
      return originalIsEnough ? null : thumbnail;
    },
  };
}

export type MediaProcessor = ReturnType<typeof createMediaProcessor>;
