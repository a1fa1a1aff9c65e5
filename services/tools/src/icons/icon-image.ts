import decodeIco from 'decode-ico';
import sharp, { type Sharp } from 'sharp';

// No cache: icons are many small, one-off images; a cache would only hold memory.
sharp.cache(false);

/** Icons are shown at most 72 CSS pixels wide: 128 px covers a 2x screen with room. */
export const ICON_PIXELS = 128;
/** A favicon larger than this many pixels is not a favicon (and could be a decompression bomb). */
const MAX_INPUT_PIXELS = 4096 * 4096;

export type IconFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'ico' | 'bmp' | 'svg';

export class NotAnIconError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotAnIconError';
  }
}

/** The format by its magic bytes; what a server calls it (Content-Type, extension) is not believed. */
export function sniffIconFormat(bytes: Buffer): IconFormat | undefined {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (starts(0x00, 0x00, 0x01, 0x00) && bytes.length > 6) return 'ico';
  if (starts(0x42, 0x4d)) return 'bmp';
  // SVG is text: an optional BOM, XML declaration, comments and doctype, then the <svg> root.
  const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(head)) return 'svg';
  return undefined;
}

/** The largest picture in an .ico, as something sharp can read. */
function fromIco(bytes: Buffer): Sharp {
  let images: ReturnType<typeof decodeIco>;
  try {
    images = decodeIco(bytes);
  } catch (error) {
    throw new NotAnIconError(`not a readable .ico: ${(error as Error).message}`);
  }
  const largest = images.filter((image) => image.width * image.height <= MAX_INPUT_PIXELS).sort((a, b) => b.width * b.height - a.width * a.height)[0];
  if (!largest) throw new NotAnIconError('an .ico without a picture');
  if (largest.type === 'png') return sharp(Buffer.from(largest.data), { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS });
  return sharp(Buffer.from(largest.data.buffer, largest.data.byteOffset, largest.data.byteLength), {
    raw: { width: largest.width, height: largest.height, channels: 4 },
  });
}

/** A vector icon is drawn at the density that makes it ICON_PIXELS wide, not at 72 dpi and then blurred up. */
async function svgDensity(bytes: Buffer): Promise<number> {
  const { width, height } = await sharp(bytes, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  const side = Math.max(width ?? 0, height ?? 0);
  return side > 0 ? Math.min(2400, Math.max(1, (72 * ICON_PIXELS) / side)) : 72;
}

/**
 * Turns a fetched icon into the PNG we serve: the bytes must be a real image by their magic numbers and
 * decode in full (failOn 'error'); the result is re-encoded by us, so nothing of the original file (an
 * SVG's script, metadata, a polyglot's payload) reaches a visitor. SVG is rasterized here, by librsvg,
 * which runs no script and, reading from memory, loads no external resource.
 */
export async function renderIcon(bytes: Buffer): Promise<{ png: Buffer; width: number; height: number }> {
  const format = sniffIconFormat(bytes);
  if (!format) throw new NotAnIconError('not an image (unknown magic bytes)');
  if (format === 'bmp') throw new NotAnIconError('a bare BMP is not accepted as an icon');
  try {
    const source =
      format === 'ico'
        ? fromIco(bytes)
        : sharp(bytes, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS, animated: false, ...(format === 'svg' ? { density: await svgDensity(bytes) } : {}) });
    const { data, info } = await source
      .resize(ICON_PIXELS, ICON_PIXELS, { fit: 'inside', withoutEnlargement: true })
      .png({ compressionLevel: 9 })
      .toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof NotAnIconError) throw error;
    throw new NotAnIconError(`the image does not decode: ${(error as Error).message.split('\n')[0]}`);
  }
}
