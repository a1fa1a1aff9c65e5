import fs from 'node:fs/promises';
import zlib from 'node:zlib';

/**
 * Removes personal metadata from JPEG, PNG, WebP and GIF files without decoding them: the
 * container's metadata segments/chunks are left out and every other byte is copied as it is, so
 * the picture loses no quality. What goes: EXIF (GPS, camera and lens serials, owner, dates), XMP,
 * IPTC/Photoshop blocks, comments, text chunks, maker-specific APPn segments and data after the
 * image's end (a phone's appended depth or preview images, with their own EXIF). What stays: the
 * colour profile (ICC), everything the decoder needs, animation, and the EXIF orientation, which is
 * written back as a minimal EXIF block holding that one tag so the picture still displays upright.
 *
 * A file is read piecewise (bounded memory however large the file) and the result is written to a
 * new file; bytes in memory (an upload received into memory) give new bytes. The input is never
 * changed.
 */

/** A part of the output: bytes of the source [start, end), or bytes made here. */
type Piece = { start: number; end: number } | Buffer;

export type StrippableFormat = 'jpeg' | 'png' | 'webp' | 'gif';

export class MalformedContainerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedContainerError';
  }
}

const WINDOW = 64 * 1024;
const COPY_CHUNK = 1024 * 1024;

/** What the planners read: an open file, or bytes in memory. `read` copies like `FileHandle.read` and returns the count copied. */
interface ByteSource {
  readonly size: number;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
}

function fileSource(handle: fs.FileHandle, size: number): ByteSource {
  return { size, read: async (buffer, offset, length, position) => (await handle.read(buffer, offset, length, position)).bytesRead };
}

/**
 * Positioned reads through a small window, so walking many small headers of a file costs few system
 * calls. Bytes in memory are one window that covers them all: every read is a view of them, and
 * nothing is copied.
 */
class SourceReader {
  private windowStart = 0;
  private window: Buffer = Buffer.alloc(0);
  /** Reused by every step of a scan-data walk (see scanDataEnd); apart from the window. */
  private scanBuffer: Buffer | undefined;
  readonly size: number;

  constructor(private readonly source: ByteSource | Buffer) {
    if (Buffer.isBuffer(source)) this.window = source;
    this.size = Buffer.isBuffer(source) ? source.length : source.size;
  }

  /** Exactly `length` bytes at `position`; throws when the file ends first. */
  async bytes(position: number, length: number): Promise<Buffer> {
    if (position < 0 || position + length > this.size) throw new MalformedContainerError(`unexpected end of file at ${position}`);
    if (position < this.windowStart || position + length > this.windowStart + this.window.length) {
      if (Buffer.isBuffer(this.source)) throw new MalformedContainerError(`unexpected end of file at ${position}`);
      const buffer = Buffer.alloc(Math.max(length, Math.min(WINDOW, this.size - position)));
      const bytesRead = await this.source.read(buffer, 0, buffer.length, position);
      this.windowStart = position;
      this.window = buffer.subarray(0, bytesRead);
      if (bytesRead < length) throw new MalformedContainerError(`unexpected end of file at ${position}`);
    }
    const offset = position - this.windowStart;
    return this.window.subarray(offset, offset + length);
  }

  async byte(position: number): Promise<number> {
    return (await this.bytes(position, 1))[0]!;
  }

  /**
   * The position of the first 0xFF at or after `position` whose next byte is a marker, not a stuffed
   * 0x00, a restart (0xD0-0xD7) or a fill 0xFF: where JPEG scan data ends. -1 if the file ends first.
   * Searched window by window without awaiting per match: scan data has an 0xFF every few hundred
   * bytes, and the whole of it is read once, into one buffer reused for each window. (A new buffer
   * per window made every upload allocate its own size again; V8 runs a full garbage collection for
   * every few megabytes of buffers allocated, and those collections were a large part of an
   * upload's CPU.)
   */
  async scanDataEnd(position: number): Promise<number> {
    if (Buffer.isBuffer(this.source)) return scanEndIn(this.source, position);
    const buffer = (this.scanBuffer ??= Buffer.allocUnsafe(Math.min(WINDOW, this.size)));
    for (let at = position; at < this.size; ) {
      // One byte of overlap, so a 0xFF at the end of a window still sees its next byte.
      const bytesRead = await this.source.read(buffer, 0, Math.min(buffer.length, this.size - at), at);
      if (bytesRead === 0) throw new MalformedContainerError(`unexpected end of file at ${at}`);
      const chunk = buffer.subarray(0, bytesRead);
      const ff = scanEndIn(chunk, 0);
      if (ff !== -1) return at + ff;
      if (chunk.length < 2) break;
      at += chunk.length - 1;
    }
    return -1;
  }
}

/** scanDataEnd within `bytes`, from `from`: the first 0xFF followed by a marker byte; -1 if there is none. */
function scanEndIn(bytes: Buffer, from: number): number {
  for (let ff = bytes.indexOf(0xff, from); ff !== -1 && ff + 1 < bytes.length; ff = bytes.indexOf(0xff, ff + 1)) {
    const next = bytes[ff + 1]!;
    if (next !== 0x00 && next !== 0xff && (next < 0xd0 || next > 0xd7)) return ff;
  }
  return -1;
}

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

const EXIF_PREFIX = Buffer.from('Exif\0\0', 'latin1');
const XMP_PREFIX = 'http://ns.adobe.com/xap/1.0/\0';
const ICC_PREFIX = 'ICC_PROFILE\0';

function withoutExifPrefix(payload: Buffer): Buffer {
  return payload.subarray(0, 6).equals(EXIF_PREFIX) ? payload.subarray(6) : payload;
}

/** True when `tiff` is exactly the block this module writes: nothing in it to remove. */
function isMinimalOrientationBlock(tiff: Buffer, orientation: number | undefined): boolean {
  return orientation !== undefined && tiff.equals(minimalOrientationTiff(orientation));
}

/** True when the orientation turns or flips the picture, i.e. is worth keeping. */
const meaningful = (orientation: number | undefined): orientation is number => orientation !== undefined && orientation !== 1;

async function planJpeg(reader: SourceReader): Promise<Piece[]> {
  if ((await reader.bytes(0, 2)).readUInt16BE(0) !== 0xffd8) throw new MalformedContainerError('not a JPEG');
  const pieces: Piece[] = [{ start: 0, end: 2 }];
  let orientation: number | undefined;
  /** True when the file already holds only the orientation block this module writes (stripped before). */
  let orientationKept = false;
  /** Where the orientation block goes: after a leading JFIF APP0 (which must come first), else after SOI. */
  let orientationSlot = 1;
  let position = 2;
  for (;;) {
    if ((await reader.byte(position)) !== 0xff) throw new MalformedContainerError(`no marker at ${position}`);
    let markerAt = position;
    // Any number of 0xFF fill bytes may precede a marker.
    while ((await reader.byte(markerAt + 1)) === 0xff) markerAt += 1;
    const marker = await reader.byte(markerAt + 1);
    if (marker === 0xd9) {
      pieces.push({ start: markerAt, end: markerAt + 2 });
      break; // EOI: anything after it (appended images, trailers) is left out
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      pieces.push({ start: markerAt, end: markerAt + 2 });
      position = markerAt + 2;
      continue;
    }
    const length = (await reader.bytes(markerAt + 2, 2)).readUInt16BE(0);
    if (length < 2) throw new MalformedContainerError(`bad segment length at ${markerAt}`);
    const end = markerAt + 2 + length;
    const payloadStart = markerAt + 4;
    const signature = (await reader.bytes(payloadStart, Math.min(length - 2, 29))).toString('latin1');
    let keep: boolean;
    if (marker === 0xe1) {
      // APP1: EXIF or XMP (standard or extended). Only the orientation survives, re-written below.
      keep = false;
      if (signature.startsWith('Exif\0\0') && orientation === undefined) {
        const tiff = await reader.bytes(payloadStart + 6, length - 8);
        orientation = orientationFromTiff(tiff);
        keep = orientationKept = isMinimalOrientationBlock(tiff, orientation);
      }
    } else if (marker === 0xe2) {
      keep = signature.startsWith(ICC_PREFIX); // the colour profile; MPF and FlashPix data go
    } else if (marker === 0xe0) {
      keep = signature.startsWith('JFIF\0') || signature.startsWith('JFXX\0');
      if (keep && pieces.length === 1) orientationSlot = 2;
    } else if (marker === 0xee) {
      keep = signature.startsWith('Adobe'); // tells the decoder the colour transform
    } else if ((marker >= 0xe3 && marker <= 0xef) || marker === 0xfe) {
      keep = false; // maker notes, IPTC/Photoshop blocks (APP13), comments
    } else {
      keep = true; // tables, frame and scan headers, restart interval
    }
    if (keep) pieces.push({ start: markerAt, end });
    position = end;
    if (marker === 0xda) {
      // Entropy-coded data follows a scan header up to the next marker that is not a stuffed 0xFF00 or a restart.
      const ff = await reader.scanDataEnd(end);
      if (ff === -1) throw new MalformedContainerError('scan data without an end');
      pieces.push({ start: end, end: ff });
      position = ff;
    }
  }
  if (meaningful(orientation) && !orientationKept) {
    const payload = Buffer.concat([EXIF_PREFIX, minimalOrientationTiff(orientation)]);
    const header = Buffer.alloc(4);
    header.writeUInt16BE(0xffe1, 0);
    header.writeUInt16BE(payload.length + 2, 2);
    pieces.splice(orientationSlot, 0, Buffer.concat([header, payload]));
  }
  return pieces;
}

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

async function planPng(reader: SourceReader): Promise<Piece[]> {
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

const VP8X_ICC = 0x20;
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

async function planWebp(reader: SourceReader): Promise<Piece[]> {
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

/** Application extensions a GIF needs: looping and its colour profile. XMP and others go. */
const GIF_KEPT_APPLICATIONS = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0', 'ICCRGBG1012']);

async function planGif(reader: SourceReader): Promise<Piece[]> {
  const header = await reader.bytes(0, 13);
  if (!/^GIF8[79]a$/.test(header.toString('latin1', 0, 6))) throw new MalformedContainerError('not a GIF');
  const packed = header[10]!;
  let position = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
  const pieces: Piece[] = [{ start: 0, end: position }];
  /** The end of a run of data sub-blocks starting at `at` (after its 0 terminator). */
  const skipSubBlocks = async (at: number): Promise<number> => {
    for (let size = await reader.byte(at); size !== 0; size = await reader.byte(at)) at += 1 + size;
    return at + 1;
  };
  for (;;) {
    const introducer = await reader.byte(position);
    if (introducer === 0x3b) {
      pieces.push({ start: position, end: position + 1 });
      return pieces; // trailer: anything after it is left out
    }
    if (introducer === 0x21) {
      const label = await reader.byte(position + 1);
      const end = await skipSubBlocks(position + 2);
      let keep = label !== 0xfe; // comments go
      if (label === 0xff) {
        const size = await reader.byte(position + 2);
        keep = size === 11 && GIF_KEPT_APPLICATIONS.has((await reader.bytes(position + 3, 11)).toString('latin1'));
      }
      if (keep) pieces.push({ start: position, end });
      position = end;
    } else if (introducer === 0x2c) {
      const descriptor = await reader.bytes(position, 10);
      const local = descriptor[9]! & 0x80 ? 3 * 2 ** ((descriptor[9]! & 0x07) + 1) : 0;
      const end = await skipSubBlocks(position + 10 + local + 1);
      pieces.push({ start: position, end });
      position = end;
    } else {
      throw new MalformedContainerError(`unknown GIF block 0x${introducer.toString(16)} at ${position}`);
    }
  }
}

const PLANNERS: Record<StrippableFormat, (reader: SourceReader) => Promise<Piece[]>> = { jpeg: planJpeg, png: planPng, webp: planWebp, gif: planGif };

/** True when the plan is the whole source, unchanged: then nothing needs writing. */
function isWholeSource(pieces: Piece[], size: number): boolean {
  let expected = 0;
  for (const piece of pieces) {
    if (Buffer.isBuffer(piece) || piece.start !== expected) return false;
    expected = piece.end;
  }
  return expected === size;
}

/**
 * Writes `source` without its personal metadata to a new file and returns its size, or returns null
 * and writes nothing when there was nothing to remove. `destination` gives the new file's path
 * (created; must not exist), and is asked only when there is a copy to write: a path taken for
 * nothing would be one more temp file to remove, whose removal would fail.
 */
export async function stripMetadataFile(format: StrippableFormat, source: string, destination: () => string): Promise<number | null> {
  const input = await fs.open(source, 'r');
  try {
    const reader = new SourceReader(fileSource(input, (await input.stat()).size));
    const pieces = await PLANNERS[format](reader);
    if (isWholeSource(pieces, reader.size)) return null;
    const output = await fs.open(destination(), 'wx');
    let written = 0;
    try {
      // No larger than the file (buffers allocated drive V8's full collections, see scanDataEnd); only
      // the bytes read into it are written.
      const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK, reader.size));
      for (const piece of pieces) {
        if (Buffer.isBuffer(piece)) {
          await output.write(piece);
          written += piece.length;
          continue;
        }
        for (let at = piece.start; at < piece.end; ) {
          const { bytesRead } = await input.read(buffer, 0, Math.min(buffer.length, piece.end - at), at);
          if (bytesRead === 0) throw new MalformedContainerError('source shrank while being copied');
          await output.write(buffer.subarray(0, bytesRead));
          at += bytesRead;
          written += bytesRead;
        }
      }
    } finally {
      await output.close();
    }
    return written;
  } finally {
    await input.close();
  }
}

/** `bytes` without their personal metadata, as stripMetadataFile writes them; null when there was nothing to remove. */
export async function stripMetadataBytes(format: StrippableFormat, bytes: Buffer): Promise<Buffer | null> {
  const pieces = await PLANNERS[format](new SourceReader(bytes));
  if (isWholeSource(pieces, bytes.length)) return null;
  return Buffer.concat(pieces.map((piece) => (Buffer.isBuffer(piece) ? piece : bytes.subarray(piece.start, piece.end))));
}
