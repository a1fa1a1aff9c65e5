/** What counts as an icon (src/icons/icon-image.ts): real images by their bytes, re-rendered to our PNG. */
import zlib from 'node:zlib';
import sharp from 'sharp';
import { NotAnIconError, renderIcon, sniffIconFormat } from '../src/icons/icon-image';

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 4, background: '#0ea5e9' } });

/** A classic favicon.ico: one 16x16 32-bit BMP picture (bottom-up BGRA, then the AND mask). */
function bmpIco(): Buffer {
  const size = 16;
  const header = Buffer.from([0, 0, 1, 0, 1, 0]);
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(size, 4);
  info.writeInt32LE(size * 2, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  const pixels = Buffer.alloc(size * size * 4);
  for (let offset = 0; offset < pixels.length; offset += 4) pixels.set([0x22, 0x88, 0xee, 0xff], offset);
  const mask = Buffer.alloc(4 * size);
  const picture = Buffer.concat([info, pixels, mask]);
  const entry = Buffer.alloc(16);
  entry.writeUInt8(size, 0);
  entry.writeUInt8(size, 1);
  entry.writeUInt16LE(1, 4);
  entry.writeUInt16LE(32, 6);
  entry.writeUInt32LE(picture.length, 8);
  entry.writeUInt32LE(22, 12);
  return Buffer.concat([header, entry, picture]);
}

/** A PNG whose header claims 100000 x 100000 pixels: a decompression bomb in a few bytes. */
function pngBomb(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(100_000, 0);
  ihdr.writeUInt32BE(100_000, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(1000))), chunk('IEND', Buffer.alloc(0))]);
}

async function refusal(bytes: Buffer): Promise<string> {
  try {
    await renderIcon(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(NotAnIconError);
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('icon images', () => {
  it('when the bytes are PNG, JPEG, GIF, WebP, an .ico (PNG or BMP inside) or SVG, then each becomes a PNG of at most 128 px', async () => {
    const inputs: Array<[string, Buffer, number]> = [
      ['png', await solid(300, 150).png().toBuffer(), 128],
      ['jpeg', await solid(64, 64).jpeg().toBuffer(), 64],
      ['gif', await solid(32, 32).gif().toBuffer(), 32],
      ['webp', await solid(200, 200).webp().toBuffer(), 128],
      ['ico', bmpIco(), 16],
      ['svg', Buffer.from('\uFEFF<?xml version="1.0"?>\n<!-- logo --><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10"/></svg>'), 128],
    ];
    for (const [format, bytes, width] of inputs) {
      expect(sniffIconFormat(bytes)).toBe(format);
      const { png } = await renderIcon(bytes);
      expect({ input: format, ...(await sharp(png).metadata()) }).toMatchObject({ input: format, format: 'png', width });
    }
    const { data } = await sharp((await renderIcon(bmpIco())).png).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 4)]).toEqual([0xee, 0x88, 0x22, 0xff]);
  });

  it('when the bytes are HTML, a bare BMP, a truncated PNG, a GIF header over text or a decompression bomb, then they are refused', async () => {
    expect(await refusal(Buffer.from('<!doctype html><html><body>hi</body></html>'))).toBe('not an image (unknown magic bytes)');
    expect(await refusal(Buffer.from('BM not a favicon'))).toBe('a bare BMP is not accepted as an icon');
    const png = await solid(64, 64).png().toBuffer();
    expect(await refusal(png.subarray(0, png.length / 2))).toMatch(/^the image does not decode/);
    expect(await refusal(Buffer.from('GIF89a<script>alert(1)</script>'))).toMatch(/^the image does not decode/);
    expect(await refusal(pngBomb())).toMatch(/^the image does not decode: .*pixel limit/);
    expect(await refusal(Buffer.from([0, 0, 1, 0, 1, 0, 1, 2, 3]))).toMatch(/^not a readable \.ico/);
  });
});
