import request from 'supertest';
import sharp from 'sharp';
import { createTestUser, filesIn, imageRows, openTestService, publicBytes, storedKeys, usedBytes, type TestService } from './support/harness';

/**
 * Deduplication is per owner (README, "Deduplication"): an upload of content the user already has
 * stored is answered with that image, at once, with nothing stored or charged again; other users'
 * images are never looked at. Runs on PGlite, real Postgres (TEST_DATABASE_URL) and the bucket (TEST_STORAGE=s3).
 */
jest.setTimeout(60_000);

let svc: TestService;
beforeAll(async () => {
  svc = await openTestService();
});
afterAll(async () => svc?.close());
beforeEach(async () => svc.reset());

const API = '/api/image.php';

/** A small PNG of its own content: `shade` makes it differ from every other. */
function png(shade: number): Promise<Buffer> {
  return sharp({ create: { width: 16, height: 12, channels: 3, background: { r: shade % 256, g: Math.floor(shade / 256) % 256, b: 90 } } })
    .png()
    .toBuffer();
}

function upload(token: string, bytes: Buffer, options: { name?: string; categoryId?: number; key?: string } = {}) {
  const req = request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token);
  if (options.key) req.set('Idempotency-Key', options.key);
  if (options.categoryId !== undefined) req.field('category_id', String(options.categoryId));
  return req.attach('file', bytes, { filename: options.name ?? 'photo.png', contentType: 'image/png' });
}

async function storedFileCount(): Promise<{ public: number; thumbs: number; bin: number; tmp: number }> {
  return {
    public: (await storedKeys(svc, 'public')).length,
    thumbs: (await storedKeys(svc, 'thumbs')).length,
    bin: (await storedKeys(svc, 'bin')).length,
    tmp: filesIn(svc.storageDir, 'tmp').length,
  };
}

test('when a user uploads the same content twice, then the second answer is the first image, with the same fields, and nothing more is stored or charged', async () => {
  const user = await createTestUser(svc.db);
  const bytes = await png(1);
  const first = await upload(user.token, bytes, { name: 'first.png' });
  expect(first.body.code).toBe(0);
  const charged = await usedBytes(svc.db, user.id);
  expect(charged).toBe(first.body.data.file_size);

  const category = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token).send({ name: 'trips' });
  const second = await upload(user.token, bytes, { name: 'renamed.png', categoryId: category.body.data.id });
  // The same envelope and fields as any upload: the existing image, unchanged (its name, its category).
  expect(second.status).toBe(200);
  expect(second.body).toEqual(first.body);
  expect(Object.keys(second.body.data)).toEqual(Object.keys(first.body.data));
  expect(await usedBytes(svc.db, user.id)).toBe(charged);
  const rows = await imageRows(svc.db, user.id);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.original_name).toBe('first.png');
  expect(await storedFileCount()).toEqual({ public: 1, thumbs: 1, bin: 0, tmp: 0 });
  const metrics = await request(svc.app).get('/metrics');
  expect(metrics.text).toMatch(/images_uploads_total\{outcome="deduplicated"\} 1/);
});

test('when a duplicate arrives with the quota full, then it is still answered with the existing image (it costs nothing)', async () => {
  const user = await createTestUser(svc.db);
  const bytes = await png(2);
  const first = await upload(user.token, bytes);
  await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: first.body.data.file_size });
  const again = await upload(user.token, bytes);
  expect(again.body).toEqual(first.body);
  const other = await upload(user.token, await png(3));
  expect(other.body).toEqual({ code: 1, msg: '存储空间不足' });
});

test('when two users upload the same content, then each gets an image of their own, charged to each, and one deleting or purging leaves the other', async () => {
  const alice = await createTestUser(svc.db);
  const bob = await createTestUser(svc.db);
  const bytes = await png(4);
  const a = await upload(alice.token, bytes);
  const b = await upload(bob.token, bytes);
  expect(a.body.code).toBe(0);
  expect(b.body.code).toBe(0);
  expect(b.body.data.id).not.toBe(a.body.data.id);
  expect(b.body.data.url).not.toBe(a.body.data.url);
  expect(await usedBytes(svc.db, alice.id)).toBe(a.body.data.file_size);
  expect(await usedBytes(svc.db, bob.id)).toBe(b.body.data.file_size);
  expect(await storedFileCount()).toEqual({ public: 2, thumbs: 2, bin: 0, tmp: 0 });

  await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', alice.token).send({ id: a.body.data.id }).expect(200);
  await request(svc.app).post(`${API}?action=purge`).set('X-API-Token', alice.token).send({ id: a.body.data.id }).expect(200);
  expect(await usedBytes(svc.db, alice.id)).toBe(0);
  expect(await usedBytes(svc.db, bob.id)).toBe(b.body.data.file_size);
  expect(await publicBytes(svc, b.body.data.url)).not.toBeNull();
  expect(await storedFileCount()).toEqual({ public: 1, thumbs: 1, bin: 0, tmp: 0 });
  const bobs = await imageRows(svc.db, bob.id);
  expect(bobs.map((row) => row.status)).toEqual(['stored']);
});

test('when the earlier copy is in the bin, then the upload is stored anew (charged as a new image); restoring the binned one keeps both', async () => {
  const user = await createTestUser(svc.db);
  const bytes = await png(5);
  const first = await upload(user.token, bytes);
  await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: first.body.data.id }).expect(200);
  const second = await upload(user.token, bytes);
  expect(second.body.code).toBe(0);
  expect(second.body.data.id).not.toBe(first.body.data.id);
  // Binned images stay charged until purged, as any binned image: two images, two charges.
  expect(await usedBytes(svc.db, user.id)).toBe(first.body.data.file_size + second.body.data.file_size);

  const restored = await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: first.body.data.id });
  expect(restored.body).toMatchObject({ code: 0, msg: '恢复成功' });
  const rows = await imageRows(svc.db, user.id);
  expect(rows.map((row) => row.status)).toEqual(['stored', 'stored']);
  // The restored copy sits beside the other without a hash; new uploads of the content answer the other.
  expect(rows[0]!.content_hash).toBeNull();
  expect(rows[1]!.content_hash).not.toBeNull();
  const third = await upload(user.token, bytes);
  expect(third.body.data.id).toBe(second.body.data.id);
  expect(await storedFileCount()).toEqual({ public: 2, thumbs: 2, bin: 0, tmp: 0 });
});

test('when an upload with an Idempotency-Key is a duplicate, then a retry with the key answers the same image', async () => {
  const user = await createTestUser(svc.db);
  const bytes = await png(6);
  const first = await upload(user.token, bytes);
  const keyed = await upload(user.token, bytes, { key: 'retry-1' });
  expect(keyed.body.data.id).toBe(first.body.data.id);
  const retried = await upload(user.token, bytes, { key: 'retry-1' });
  expect(retried.body.data.id).toBe(first.body.data.id);
  expect(await imageRows(svc.db, user.id)).toHaveLength(1);
});

test('when the compatible APIs receive a duplicate, then they answer the existing image in their own shape', async () => {
  const user = await createTestUser(svc.db);
  const bytes = await png(7);
  const first = await upload(user.token, bytes);
  const lsky = await request(svc.app).post('/compat/lsky/api/v1/upload').set('Authorization', `Bearer ${user.token}`).attach('file', bytes, { filename: 'x.png', contentType: 'image/png' });
  expect(lsky.body.status).toBe(true);
  expect(JSON.stringify(lsky.body)).toContain(first.body.data.url);
  const easy = await request(svc.app).post('/compat/easyimage/api/index.php').field('token', user.token).attach('image', bytes, { filename: 'x.png', contentType: 'image/png' });
  expect(JSON.stringify(easy.body)).toContain(first.body.data.url);
  expect(await imageRows(svc.db, user.id)).toHaveLength(1);
});

/** PGlite has one connection, so the uploads interleave only on real Postgres; both must end as one image. */
describe('identical uploads at once', () => {
  test('when 8 identical uploads of one user arrive at once, then one image is stored and charged once, each answer names it, and one set of files is left', async () => {
    const user = await createTestUser(svc.db);
    const bytes = await png(8);
    const results = await Promise.all(Array.from({ length: 8 }, (_, n) => upload(user.token, bytes, { name: `copy-${n}.png` })));
    expect(results.map((r) => r.body.code)).toEqual(Array(8).fill(0));
    const ids = new Set(results.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    const rows = await imageRows(svc.db, user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('stored');
    expect(await usedBytes(svc.db, user.id)).toBe(Number(rows[0]!.file_size));
    expect(await storedFileCount()).toEqual({ public: 1, thumbs: 1, bin: 0, tmp: 0 });
  });

  test('when 8 identical uploads arrive at once with room for exactly one image, then all 8 answer that image (no duplicate is refused for quota)', async () => {
    const user = await createTestUser(svc.db);
    const bytes = await png(9);
    const probe = await createTestUser(svc.db);
    const size = (await upload(probe.token, bytes)).body.data.file_size as number;
    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: size + size - 1 });
    const results = await Promise.all(Array.from({ length: 8 }, () => upload(user.token, bytes)));
    expect(results.map((r) => r.body.msg)).toEqual(Array(8).fill('上传成功'));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(await usedBytes(svc.db, user.id)).toBe(size);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
  });

  test('when 8 users upload the same content at once, and each uploads it twice, then each has one image charged once', async () => {
    const users = await Promise.all(Array.from({ length: 4 }, () => createTestUser(svc.db)));
    const bytes = await png(10);
    const results = await Promise.all(users.flatMap((user) => [upload(user.token, bytes), upload(user.token, bytes)]));
    expect(results.map((r) => r.body.code)).toEqual(Array(8).fill(0));
    for (const [n, user] of users.entries()) {
      expect(results[2 * n]!.body.data.id).toBe(results[2 * n + 1]!.body.data.id);
      const rows = await imageRows(svc.db, user.id);
      expect(rows).toHaveLength(1);
      expect(await usedBytes(svc.db, user.id)).toBe(Number(rows[0]!.file_size));
    }
    expect(await storedFileCount()).toEqual({ public: 4, thumbs: 4, bin: 0, tmp: 0 });
  });
});
