/** The one piece of EXIF a stripped picture keeps: its orientation, read from and written as a TIFF structure. */

/** EXIF orientation (1-8) read from a TIFF structure (the EXIF payload); undefined when absent. */
export function orientationFromTiff(tiff: Buffer): number | undefined {
  if (tiff.length < 8) return undefined;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return undefined;
  const little = order === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  if (u16(2) !== 42) return undefined;
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const count = u16(ifd);
  for (let entry = 0; entry < count; entry += 1) {
    const at = ifd + 2 + entry * 12;
    if (at + 12 > tiff.length) return undefined;
    if (u16(at) === 0x0112 && u16(at + 2) === 3) {
      const value = u16(at + 8);
      return value >= 1 && value <= 8 ? value : undefined;
    }
  }
  return undefined;
}

/** A TIFF structure holding one tag, Orientation (big-endian, as EXIF allows either). */
export function minimalOrientationTiff(orientation: number): Buffer {
  const tiff = Buffer.alloc(26);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4); // IFD0 right after the header
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(0x0112, 10); // Orientation
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14); // one value
  tiff.writeUInt16BE(orientation, 18); // the value, left-justified in the 4-byte field
  tiff.writeUInt32BE(0, 22); // no next IFD
  return tiff;
}

export const EXIF_PREFIX = Buffer.from('Exif\0\0', 'latin1');

export function withoutExifPrefix(payload: Buffer): Buffer {
  return payload.subarray(0, 6).equals(EXIF_PREFIX) ? payload.subarray(6) : payload;
}

/** True when `tiff` is exactly the block this module writes: nothing in it to remove. */
export function isMinimalOrientationBlock(tiff: Buffer, orientation: number | undefined): boolean {
  return orientation !== undefined && tiff.equals(minimalOrientationTiff(orientation));
}

/** True when the orientation turns or flips the picture, i.e. is worth keeping. */
export const meaningful = (orientation: number | undefined): orientation is number => orientation !== undefined && orientation !== 1;

