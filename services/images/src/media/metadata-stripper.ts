import fs from 'node:fs/promises';
import { planGif } from './metadata/gif-plan';
import { planJpeg } from './metadata/jpeg-plan';
import { planPng } from './metadata/png-plan';
import { fileSource, MalformedContainerError, SourceReader, type Piece } from './metadata/source-reader';
import { planWebp } from './metadata/webp-plan';

export { MalformedContainerError } from './metadata/source-reader';
export { minimalOrientationTiff, orientationFromTiff } from './metadata/exif-orientation';

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

export type StrippableFormat = 'jpeg' | 'png' | 'webp' | 'gif';

const COPY_CHUNK = 1024 * 1024;

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
