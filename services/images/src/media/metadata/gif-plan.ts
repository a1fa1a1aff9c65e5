import { MalformedContainerError, type Piece, type SourceReader } from './source-reader';

/** Application extensions a GIF needs: looping and its colour profile. XMP and others go. */
const GIF_KEPT_APPLICATIONS = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0', 'ICCRGBG1012']);

/** A GIF's blocks without comments and application extensions other than looping and colour, up to its trailer. */
export async function planGif(reader: SourceReader): Promise<Piece[]> {
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

