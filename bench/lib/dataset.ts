import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import sharp from 'sharp';
import { runAdmin } from './stack';

/** The word every list user has in exactly NEEDLE_MATCHES file names, whatever their image count. */
export const NEEDLE = 'sunset';
export const NEEDLE_MATCHES = 50;

/**
 * Words in the seeded names with the share of a user's images each is in (by the image's number g,
 * below), for the keyword search scenarios: a common word, a CJK one as common, a rarer one, a rare
 * one, and one in no name. `IMG_` is the camera prefix of every name none of these claims (78.99 %).
 */
export const KEYWORDS = [
  { keyword: 'holiday', share: '10 %', matches: (count: number) => numbered(count, 10, 3) },
  { keyword: '微信图片', share: '10 %', matches: (count: number) => numbered(count, 10, 5) },
  { keyword: 'screenshot', share: '1 %', matches: (count: number) => numbered(count, 100, 7) },
  { keyword: 'aurora', share: '0.01 %', matches: (count: number) => numbered(count, 10_000, 9) },
  { keyword: 'zebra', share: 'none', matches: () => 0 },
  {
    keyword: 'IMG_',
    share: '79 %',
    matches: (count: number) => count - numbered(count, 10, 3) - numbered(count, 10, 5) - numbered(count, 100, 7) - numbered(count, 10_000, 9) - Math.min(NEEDLE_MATCHES, count),
  },
] as const;

/** How many of 1..count leave `remainder` divided by `modulus`. */
function numbered(count: number, modulus: number, remainder: number): number {
  return count >= remainder ? Math.floor((count - remainder) / modulus) + 1 : 0;
}

function lineAfter(output: string, label: string): string {
  const line = output.split('\n').find((l) => l.startsWith(label));
  if (!line) throw new Error(`admin output without "${label}":\n${output}`);
  return line.slice(label.length).trim();
}

/** The sample directory that `npm start` imports, and a key whose limit the bench cannot reach. */
export async function seedTools(env: NodeJS.ProcessEnv): Promise<{ apiKey: string }> {
  await runAdmin('tools', env, ['demo:seed']);
  const created = await runAdmin('tools', env, ['key:create', '--name', 'bench', '--limit', '999999999']);
  return { apiKey: lineAfter(created, 'key:') };
}

/** The user's token, from the admin CLI's `token (…): <token>` line. */
export async function createImagesUser(env: NodeJS.ProcessEnv, name: string, group: string): Promise<string> {
  const output = await runAdmin('images', env, ['create-user', name, '--group', group]);
  const token = /^token \([^)]*\): (\S+)$/m.exec(output)?.[1];
  if (!token) throw new Error(`admin output without a token line:\n${output}`);
  return token;
}

export async function createImagesGroup(env: NodeJS.ProcessEnv, name: string): Promise<void> {
  await runAdmin('images', env, ['create-group', name, '--max-file-size', '64MiB', '--quota', '100000GiB']);
}

/**
 * Gives a user `count` stored images as rows (no files: lists never read them), newest last, in
 * batches, through plain INSERTs: whatever the schema maintains on insert is maintained. Exactly
 * NEEDLE_MATCHES names contain NEEDLE; of the others, those of KEYWORDS (exact shares when `count` is
 * a multiple of 10,000), and camera-style names. used_bytes is set to match. A user who already has
 * `count` images is left as is (scenarios share the 1,000,000-image user).
 */
export async function seedImageRows(databaseUrl: string, userName: string, count: number, log: (line: string) => void): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ user_id: string; category_id: string }>(
      'SELECT u.id AS user_id, c.id AS category_id FROM users u JOIN categories c ON c.user_id = u.id AND c.is_default WHERE u.name = $1',
      [userName],
    );
    const owner = rows[0];
    if (!owner) throw new Error(`no user ${userName}`);
    const seeded = await client.query<{ n: string }>('SELECT coalesce(sum(count), 0) AS n FROM image_counts WHERE user_id = $1', [owner.user_id]);
    if (Number(seeded.rows[0]!.n) === count) return;
    const every = Math.max(Math.floor(count / NEEDLE_MATCHES), 1);
    const batch = 100_000;
    const started = Date.now();
    for (let from = 1; from <= count; from += batch) {
      const to = Math.min(from + batch - 1, count);
      await client.query(
        `INSERT INTO images (user_id, category_id, storage_key, thumb_key, format, original_name, file_size, width, height, status, created_at, status_changed_at)
         SELECT $1, $2, '2026/11/23/' || md5($3 || ':' || g) || '.jpg', NULL, 'jpeg',
                CASE WHEN g % $4 = 0 AND g / $4 <= $5 THEN 'beach-${NEEDLE}-' || g || '.jpg'
                     WHEN g % 10 = 3 THEN 'holiday-' || g || '.jpg'
                     WHEN g % 10 = 5 THEN '微信图片_' || g || '.jpg'
                     WHEN g % 100 = 7 THEN 'Screenshot ' || g || '.png'
                     WHEN g % 10000 = 9 THEN 'aurora-' || g || '.jpg'
                     ELSE 'IMG_' || lpad(g::text, 7, '0') || '.JPG' END,
                200000 + g % 5000, 1280, 960, 'stored', now() - make_interval(secs => $6 - g), now()
         FROM generate_series($7::int, $8::int) AS g`,
        [owner.user_id, owner.category_id, userName, every, NEEDLE_MATCHES, count, from, to],
      );
      if (count > batch) log(`  ${userName}: ${to.toLocaleString('en')} / ${count.toLocaleString('en')} rows (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    await client.query('UPDATE users SET used_bytes = (SELECT coalesce(sum(file_size), 0) FROM images WHERE user_id = users.id) WHERE id = $1', [owner.user_id]);
    // As autovacuum would soon: statistics, and the trigram index's pending list merged (GIN fastupdate).
    await client.query('VACUUM ANALYZE images');
    // The seed's dirty pages written now, not by the checkpointer while a scenario is measured.
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}

/** A photo-like JPEG (smooth gradients with grain) of the given size. */
export async function writeJpeg(file: string, width: number, height: number): Promise<Buffer> {
  const noise = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 24 } } })
    .blur(2)
    .raw()
    .toBuffer();
  const bytes = await sharp(noise, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 88 })
    .toBuffer();
  writeFileSync(file, bytes);
  return bytes;
}

/** A PNG of at least `bytes` bytes: noise does not compress. */
export async function writeLargePng(file: string, bytes: number): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt(bytes / 3));
  const png = await sharp({ create: { width: side, height: side, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  writeFileSync(file, png);
  return png;
}

/** The multipart body of an upload with one `file` part. */
export function multipartUpload(fileName: string, mimeType: string, bytes: Buffer): { body: Buffer; contentType: string } {
  const boundary = `----bench${Date.now().toString(16)}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(fileName)}"\r\nContent-Type: ${mimeType}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, bytes, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}

const UNIQUE_PLACEHOLDER = 'bench-upload-000000000000';
/** Bodies made so far by every generator: no two bodies of a run share their number. */
let uniqueBodiesMade = 0;

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * Upload bodies whose files differ in one comment, each body of the run its own: a JPEG gets a COM
 * segment after its SOI, a PNG a tEXt chunk after its IHDR (its CRC written again each time). The
 * service answers a user's repeat upload of the same bytes with the image it already stored
 * (deduplication), so a load of identical bodies would measure that answer, not uploads; the
 * metadata stripper drops the comment, so what is stored is the photo's own bytes.
 */
export function uniqueMultipartUploads(fileName: string, mimeType: string, bytes: Buffer): { contentType: string; next: () => Buffer } {
  const text = Buffer.from(UNIQUE_PLACEHOLDER, 'latin1');
  let file: Buffer;
  let crcSpan: { from: number; to: number } | null = null; // in the file: what a PNG chunk's CRC covers
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const segment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), text]);
    segment.writeUInt16BE(2 + text.length, 2);
    file = Buffer.concat([bytes.subarray(0, 2), segment, bytes.subarray(2)]);
  } else if (bytes.subarray(1, 4).toString('latin1') === 'PNG') {
    const afterHeader = 8 + 12 + bytes.readUInt32BE(8);
    const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), text]);
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    chunk.write('tEXt', 4, 'latin1');
    data.copy(chunk, 8);
    file = Buffer.concat([bytes.subarray(0, afterHeader), chunk, bytes.subarray(afterHeader)]);
    crcSpan = { from: afterHeader + 4, to: afterHeader + 8 + data.length };
  } else {
    throw new Error(`uniqueMultipartUploads: ${fileName} is neither a JPEG nor a PNG`);
  }
  const { body, contentType } = multipartUpload(fileName, mimeType, file);
  const fileAt = body.indexOf(file);
  const digitsAt = body.indexOf(text) + UNIQUE_PLACEHOLDER.length - 12;
  return {
    contentType,
    next() {
      uniqueBodiesMade += 1;
      const copy = Buffer.from(body);
      copy.write(String(uniqueBodiesMade).padStart(12, '0'), digitsAt, 'latin1');
      if (crcSpan) copy.writeUInt32BE(crc32(copy.subarray(fileAt + crcSpan.from, fileAt + crcSpan.to)), fileAt + crcSpan.to);
      return copy;
    },
  };
}
