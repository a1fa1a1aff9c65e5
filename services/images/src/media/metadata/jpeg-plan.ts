import { EXIF_PREFIX, isMinimalOrientationBlock, meaningful, minimalOrientationTiff, orientationFromTiff } from './exif-orientation';
import { MalformedContainerError, type Piece, type SourceReader } from './source-reader';

const ICC_PREFIX = 'ICC_PROFILE\0';

/** A JPEG's segments without EXIF, XMP, IPTC, comments and maker segments, and nothing after its end; the orientation re-written. */
export async function planJpeg(reader: SourceReader): Promise<Piece[]> {
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

