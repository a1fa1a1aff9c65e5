import { isMinimalOrientationBlock, meaningful, minimalOrientationTiff, orientationFromTiff, withoutExifPrefix } from './exif-orientation';
import { MalformedContainerError, type Piece, type SourceReader } from './source-reader';

const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;

function riffChunk(fourcc: string, data: Buffer): Buffer {
  const padded = data.length + (data.length % 2);
  const chunk = Buffer.alloc(8 + padded);
  chunk.write(fourcc, 0, 'latin1');
  chunk.writeUInt32LE(data.length, 4);
  data.copy(chunk, 8);
  return chunk;
}

/** A WebP's chunks without EXIF and XMP (the orientation re-written), its VP8X flags and RIFF size made true. */
export async function planWebp(reader: SourceReader): Promise<Piece[]> {
  const head = await reader.bytes(0, 12);
  if (head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WEBP') throw new MalformedContainerError('not a WebP');
  const riffEnd = Math.min(8 + head.readUInt32LE(4), reader.size);
  const chunks: Array<{ fourcc: string; start: number; end: number; dataStart: number; size: number }> = [];
  for (let position = 12; position + 8 <= riffEnd; ) {
    const header = await reader.bytes(position, 8);
    const size = header.readUInt32LE(4);
    if (position + 8 + size > riffEnd) throw new MalformedContainerError('chunk runs past the end');
    // Chunks are padded to an even length (a last odd one may lack its pad byte).
    const end = Math.min(position + 8 + size + (size % 2), riffEnd);
    chunks.push({ fourcc: header.toString('latin1', 0, 4), start: position, end, dataStart: position + 8, size });
    position = end;
  }
  const vp8x = chunks.find((chunk) => chunk.fourcc === 'VP8X');
  const body: Piece[] = [];
  let orientation: number | undefined;
  let orientationKept = false;
  for (const chunk of chunks) {
    if (chunk.fourcc === 'EXIF' && orientation === undefined) {
      const tiff = withoutExifPrefix(await reader.bytes(chunk.dataStart, chunk.size));
      orientation = orientationFromTiff(tiff);
      orientationKept = isMinimalOrientationBlock(tiff, orientation);
      if (!orientationKept) continue;
    } else if (chunk.fourcc === 'EXIF') {
      continue;
    }
    if (chunk.fourcc === 'XMP ' || chunk === vp8x) continue;
    body.push({ start: chunk.start, end: chunk.end });
    // A last odd-sized chunk may lack its pad byte; chunks written after it need the alignment.
    if (chunk.end - chunk.dataStart === chunk.size && chunk.size % 2 === 1) body.push(Buffer.alloc(1));
  }
  if (vp8x) {
    // The extended header's flags must say which optional chunks remain.
    const data = Buffer.from(await reader.bytes(vp8x.dataStart, vp8x.size));
    data[0] = (data[0]! & ~(VP8X_EXIF | VP8X_XMP)) | (meaningful(orientation) ? VP8X_EXIF : 0);
    const unchanged = data.equals(await reader.bytes(vp8x.dataStart, vp8x.size));
    body.unshift(unchanged ? { start: vp8x.start, end: vp8x.end } : riffChunk('VP8X', data));
    if (meaningful(orientation) && !orientationKept) body.push(riffChunk('EXIF', minimalOrientationTiff(orientation)));
  }
  const length = body.reduce((sum, piece) => sum + (Buffer.isBuffer(piece) ? piece.length : piece.end - piece.start), 0);
  if (head.readUInt32LE(4) === 4 + length && riffEnd === reader.size) return [{ start: 0, end: 12 }, ...body];
  const riffHeader = Buffer.alloc(12);
  riffHeader.write('RIFF', 0, 'latin1');
  riffHeader.writeUInt32LE(4 + length, 4);
  riffHeader.write('WEBP', 8, 'latin1');
  return [riffHeader, ...body];
}

