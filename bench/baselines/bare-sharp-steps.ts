/**
 * The media steps of an upload in bare sharp, as both baselines run them: validate and read the
 * metadata, then make the 400×400 WebP thumbnail, from the bytes in memory. The sharp settings are the
 * images service's media module's: failOn truncated, the 50-megapixel limit, one frame, no cache.
 */
import sharp from 'sharp';

const OPTIONS = { failOn: 'truncated' as const, limitInputPixels: 50_000_000, pages: 1 };

sharp.cache(false);

export async function bareSharpSteps(input: Buffer): Promise<{ format: string; thumbnail: Buffer }> {
  const metadata = await sharp(input, OPTIONS).metadata();
  if (!metadata.format || !metadata.width || !metadata.height) throw new Error('not an image');
  const thumbnail = await sharp(input, OPTIONS).rotate().resize(400, 400, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
  return { format: metadata.format, thumbnail };
}
