import zlib from 'node:zlib';
import { isMinimalOrientationBlock, meaningful, minimalOrientationTiff, orientationFromTiff, withoutExifPrefix } from './exif-orientation';
import { MalformedContainerError, type Piece, type SourceReader } from './source-reader';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Ancillary chunks that carry text, dates or EXIF; everything else (iCCP, sRGB, gAMA, pHYs, animation…) stays. */
const PNG_DROPPED = new Set(['eXIf', 'tEXt', 'zTXt', 'iTXt', 'tIME']);

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(zlib.crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

/** A PNG's chunks without text, dates and EXIF (the orientation re-written), up to IEND. */
export async function planPng(reader: SourceReader): Promise<Piece[]> {
  if (!(await reader.bytes(0, 8)).equals(PNG_SIGNATURE)) throw new MalformedContainerError('not a PNG');
  const pieces: Piece[] = [{ start: 0, end: 8 }];
  let position = 8;
  for (;;) {
    const header = await reader.bytes(position, 8);
    const length = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    const end = position + 12 + length;
    if (end > reader.size) throw new MalformedContainerError(`chunk ${type} runs past the end`);
    if (type === 'eXIf') {
      const tiff = withoutExifPrefix(await reader.bytes(position + 8, length));
      const orientation = orientationFromTiff(tiff);
      if (isMinimalOrientationBlock(tiff, orientation)) pieces.push({ start: position, end });
      else if (meaningful(orientation)) pieces.push(pngChunk('eXIf', minimalOrientationTiff(orientation)));
    } else if (!PNG_DROPPED.has(type)) {
      pieces.push({ start: position, end });
    }
    position = end;
    if (type === 'IEND') return pieces;
  }
}

