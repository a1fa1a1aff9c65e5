import type fs from 'node:fs/promises';

/** What a planner gives: the output as parts, each bytes of the source [start, end) or bytes made by the planner. */
export type Piece = { start: number; end: number } | Buffer;

/** A file that is not the container it claims to be, or ends too soon. */
export class MalformedContainerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedContainerError';
  }
}

const WINDOW = 64 * 1024;

/** What the planners read: an open file, or bytes in memory. `read` copies like `FileHandle.read` and returns the count copied. */
export interface ByteSource {
  readonly size: number;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<number>;
}

export function fileSource(handle: fs.FileHandle, size: number): ByteSource {
  return { size, read: async (buffer, offset, length, position) => (await handle.read(buffer, offset, length, position)).bytesRead };
}

/**
 * Positioned reads through a small window, so walking many small headers of a file costs few system
 * calls. Bytes in memory are one window that covers them all: every read is a view of them, and
 * nothing is copied.
 */
export class SourceReader {
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

