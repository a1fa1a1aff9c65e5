import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { canDecodeHeic } from '../src/media/media-processor';
import { minimalOrientationTiff, orientationFromTiff, stripMetadataBytes, stripMetadataFile } from '../src/media/metadata-stripper';
import { PERSONAL } from './fixtures/make-fixtures';
import { createTestUser, filesIn, storedKeys, fixture, fixtureBytes, imageRows, useTestService, publicBytes, usedBytes, userAdminFor } from './support/harness';

// Photo privacy: a stored original carries no GPS, serials, owner or XMP unless the group keeps
// them, keeps its orientation and colour profile, and (JPEG, PNG, WebP, GIF) is not re-encoded.

const UPLOAD = '/api/image.php?action=upload';
const svc = useTestService();

/** The personal values the fixtures carry, as they appear in bytes (ASCII in EXIF, XMP, comments). */
const PERSONAL_TEXTS = Object.values(PERSONAL);

function personalTextsIn(bytes: Buffer): string[] {
  const text = bytes.toString('latin1');
  return PERSONAL_TEXTS.filter((value) => text.includes(value));
}

/** The EXIF tags present in IFD0 of an EXIF payload (as sharp reports it, with its "Exif\0\0" prefix). */
function ifd0Tags(exif: Buffer | undefined): number[] {
  if (!exif) return [];
  const tiff = exif.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? exif.subarray(6) : exif;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const ifd = little ? tiff.readUInt32LE(4) : tiff.readUInt32BE(4);
  return Array.from({ length: u16(ifd) }, (_, entry) => u16(ifd + 2 + entry * 12));
}

async function pixels(bytes: Buffer): Promise<Buffer> {
  return sharp(bytes, { pages: -1 }).raw().toBuffer();
}

async function upload(token: string, name: string) {
  const res = await request(svc.app).post(UPLOAD).set('X-API-Token', token).attach('file', fixture(name));
  expect(res.body).toMatchObject({ code: 0, msg: '上传成功' });
  return res.body.data as { id: number; url: string; file_size: number; width: number; height: number };
}

describe('stored originals without personal metadata', () => {
  const cases = [
    { file: 'private-phone.jpg', ext: 'jpg', orientation: 6, width: 600, height: 800, samePixels: true },
    { file: 'private.png', ext: 'png', orientation: 6, width: 240, height: 320, samePixels: true },
    { file: 'private.webp', ext: 'webp', orientation: 8, width: 300, height: 400, samePixels: true },
    { file: 'private.gif', ext: 'gif', orientation: undefined, width: 120, height: 90, samePixels: true },
    // AVIF has no cheap way to drop its EXIF item: it is re-encoded, so its pixels change a little.
    { file: 'private.avif', ext: 'avif', orientation: undefined, width: 300, height: 200, samePixels: false },
  ];

  test.each(cases)('when $file is uploaded, then the stored file has no GPS, serial, owner, XMP or comment, keeps orientation and colour profile, and is charged as stored', async (c) => {
    const uploaded = fixtureBytes(c.file);
    expect(personalTextsIn(uploaded)).not.toEqual([]);
    const user = await createTestUser(svc.db);

    const image = await upload(user.token, c.file);

    expect(image.url).toMatch(new RegExp(`\\.${c.ext}$`));
    const stored = (await publicBytes(svc, image.url))!;
    expect(personalTextsIn(stored)).toEqual([]);
    const meta = await sharp(stored).metadata();
    expect(meta.xmp).toBeUndefined();
    // At most the orientation is left of EXIF: no GPS IFD (0x8825), no Exif IFD (0x8769) with the serial.
    expect(ifd0Tags(meta.exif).filter((tag) => tag !== 0x0112)).toEqual([]);
    expect(meta.orientation).toBe(c.orientation);
    if (c.ext !== 'gif') expect(meta.icc).toEqual((await sharp(uploaded).metadata()).icc);
    expect([image.width, image.height]).toEqual([c.width, c.height]);
    expect(image.file_size).toBe(stored.length);
    if (c.samePixels) expect(stored.length).toBeLessThan(uploaded.length);
    expect(await usedBytes(svc.db, user.id)).toBe(stored.length);
    if (c.samePixels) expect((await pixels(stored)).equals(await pixels(uploaded))).toBe(true);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
  });

  test('when the phone JPEG is stored, then the image appended after its end (with its own EXIF) is gone and the file ends at EOI', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'private-phone.jpg');
    const stored = (await publicBytes(svc, image.url))!;
    expect(stored.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    expect(stored.indexOf(Buffer.from([0xff, 0xd8]), 2)).toBe(-1);
  });

  test('when the membership group keeps metadata, then the stored file is the upload, byte for byte', async () => {
    await userAdminFor(svc.db).createGroup({ name: 'photographers', maxFileSize: 10 * 1024 * 1024, quotaBytes: 1024 ** 3, keepMetadata: true });
    const user = await createTestUser(svc.db, 'ansel', 'photographers');
    for (const name of ['private-phone.jpg', 'private.png', 'private.avif']) {
      const image = await upload(user.token, name);
      expect((await publicBytes(svc, image.url))!.equals(fixtureBytes(name))).toBe(true);
      expect(image.file_size).toBe(fixtureBytes(name).length);
    }
  });

  test('when a file without metadata is uploaded, then it is stored as it came', async () => {
    const user = await createTestUser(svc.db);
    for (const name of ['photo.webp', 'tiny.png', 'animated.gif']) {
      const image = await upload(user.token, name);
      expect((await publicBytes(svc, image.url))!.equals(fixtureBytes(name))).toBe(true);
    }
  });
});

describe('images a browser can show', () => {
  test('when a TIFF is uploaded, then a lossless PNG rendition is stored as its url, with the same pixels, charged as stored', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'photo.tiff');
    expect(image.url).toMatch(/\.png$/);
    const stored = (await publicBytes(svc, image.url))!;
    expect((await sharp(stored).metadata()).format).toBe('png');
    expect((await pixels(stored)).equals(await pixels(fixtureBytes('photo.tiff')))).toBe(true);
    expect(image.file_size).toBe(stored.length);
    expect(await usedBytes(svc.db, user.id)).toBe(stored.length);
    expect((await imageRows(svc.db))[0]).toMatchObject({ format: 'png', original_name: 'photo.tiff' });
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
  });

  test('when a HEIC photo is uploaded and libvips has no HEVC decoder, then it is refused with what to do, and nothing is stored or charged', async () => {
    expect(canDecodeHeic()).toBe(false); // sharp's prebuilt libvips; a build with libde265 would store a JPEG rendition
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('photo.heic'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg: '暂不支持 HEIC 图片，请先转换为 JPEG 后上传（iPhone：设置 → 相机 → 格式 → 兼容性最佳）' });
    expect(await imageRows(svc.db)).toEqual([]);
    expect(await storedKeys(svc, 'public')).toEqual([]);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(0);
  });
});

describe('the stripper', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stripper-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const PRIVATE_FIXTURES = [
    ['jpeg', 'private-phone.jpg'],
    ['png', 'private.png'],
    ['webp', 'private.webp'],
    ['gif', 'private.gif'],
  ] as const;

  test.each(PRIVATE_FIXTURES)('when a stripped %s is stripped again, then there is nothing left to remove and no copy is made', async (format, name) => {
    const once = path.join(dir, 'once');
    expect(await stripMetadataFile(format, fixture(name), () => once)).toBe(fs.statSync(once).size);
    // No path is even asked for (the upload's receipt would otherwise try to remove a file never made).
    const twice = jest.fn(() => path.join(dir, 'twice'));
    expect(await stripMetadataFile(format, once, twice)).toBeNull();
    expect(twice).not.toHaveBeenCalled();
    expect(fs.existsSync(path.join(dir, 'twice'))).toBe(false);
    expect(await stripMetadataBytes(format, fs.readFileSync(once))).toBeNull();
  });

  test.each(PRIVATE_FIXTURES)('when a %s in memory is stripped, then the result is byte for byte the stripped file', async (format, name) => {
    const bytes = fixtureBytes(name);
    const fromFile = path.join(dir, 'from-file');
    await stripMetadataFile(format, fixture(name), () => fromFile);
    const fromBytes = await stripMetadataBytes(format, bytes);
    expect(fromBytes).not.toBeNull();
    expect(fromBytes!.equals(fs.readFileSync(fromFile))).toBe(true);
    expect(fromBytes!.length).toBeLessThan(bytes.length);
    expect(personalTextsIn(fromBytes!)).toEqual([]);
    expect(bytes.equals(fixtureBytes(name))).toBe(true); // the input is left as it was
  });

  test('when a JPEG is cut inside its scan data, then stripping refuses it as malformed, from a file or from memory', async () => {
    const cut = path.join(dir, 'cut.jpg');
    fs.writeFileSync(cut, fixtureBytes('private-phone.jpg').subarray(0, 20_000));
    await expect(stripMetadataFile('jpeg', cut, () => path.join(dir, 'out'))).rejects.toThrow('scan data without an end');
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
    await expect(stripMetadataBytes('jpeg', fs.readFileSync(cut))).rejects.toThrow('scan data without an end');
  });

  test('when an orientation is written back, then it reads as the same value, and other orientations read as absent', () => {
    for (const orientation of [1, 3, 6, 8]) expect(orientationFromTiff(minimalOrientationTiff(orientation))).toBe(orientation);
    expect(orientationFromTiff(Buffer.from('not a tiff'))).toBeUndefined();
  });
});
