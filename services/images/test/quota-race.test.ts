import pino from 'pino';
import request from 'supertest';
import { describeWithRealServer } from './support/real-services';
import { createApp } from '../src/app';
import { createMediaProcessor } from '../src/media/media-processor';
import { createMetrics } from '../src/metrics/metrics';
import { createFileStorage } from '../src/storage/file-storage';
import { createTestUser, filesIn, fixture, fixtureBytes, imageRows, openTestService, usedBytes, type TestService } from './support/harness';

// Needs real Postgres: PGlite has a single connection, so it cannot show a lost-update race.
describeWithRealServer('TEST_DATABASE_URL', 'quota under concurrency (real Postgres)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService();
  });
  afterAll(async () => svc?.close());

  test('when 20 uploads race against a quota that fits 5, then exactly 5 are stored and used bytes equal their sum', async () => {
    const user = await createTestUser(svc.db);
    const size = fixtureBytes('photo.webp').length;
    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: size * 5 });

    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp')),
      ),
    );

    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(results.filter((r) => r.body.code === 0)).toHaveLength(5);
    expect(results.filter((r) => r.body.code === 1).map((r) => r.body.msg)).toEqual(Array(15).fill('存储空间不足'));
    const rows = await imageRows(svc.db, user.id);
    expect(rows).toHaveLength(5);
    expect(await usedBytes(svc.db, user.id)).toBe(rows.reduce((sum, row) => sum + Number(row.file_size), 0));
    expect(await usedBytes(svc.db, user.id)).toBe(size * 5);
    expect(filesIn(svc.storageDir, 'public')).toHaveLength(5);
    expect(filesIn(svc.storageDir, 'thumbs')).toHaveLength(5);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
  });

  test('when concurrent duplicates share an Idempotency-Key on real Postgres, then one image is created', async () => {
    await svc.reset();
    const user = await createTestUser(svc.db);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).set('Idempotency-Key', 'dup').attach('file', fixture('photo.webp')),
      ),
    );
    expect(new Set(results.map((r) => r.body.data?.id)).size).toBe(1);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
    expect(await usedBytes(svc.db, user.id)).toBe(fixtureBytes('photo.webp').length);
  });

  test('when an upload is between its charge and its files, then charge and pending row are committed together, unlisted; when the files are durable, it is stored', async () => {
    await svc.reset();
    const user = await createTestUser(svc.db);
    const storage = createFileStorage({ storageDir: svc.storageDir, timeZone: svc.config.timeZone });
    let reachedCommit!: () => void;
    const atCommit = new Promise<void>((resolve) => (reachedCommit = resolve));
    let releaseCommit!: () => void;
    const released = new Promise<void>((resolve) => (releaseCommit = resolve));
    // Holds the upload right where the files are made durable: after the charge and the pending row.
    const heldStorage = {
      ...storage,
      async commitTempFile(...args: Parameters<typeof storage.commitTempFile>) {
        reachedCommit();
        await released;
        return storage.commitTempFile(...args);
      },
    };
    const app = createApp({ config: svc.config, db: svc.db, storage: heldStorage, media: createMediaProcessor(), metrics: createMetrics(), logger: pino({ level: 'silent' }) });

    const pending = request(app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp')).then((res) => res);
    try {
      await atCommit;
      // Counted against the quota at once (so concurrent uploads cannot overshoot), recorded as
      // pending (so a crash now is undone by recovery), and not shown to anyone yet.
      expect(await usedBytes(svc.db, user.id)).toBe(fixtureBytes('photo.webp').length);
      expect((await imageRows(svc.db, user.id)).map((row) => row.status)).toEqual(['pending']);
      const listed = await request(app).get('/api/image.php?action=list').set('X-API-Token', user.token);
      expect(listed.body.data).toMatchObject({ list: [], total: 0 });
    } finally {
      releaseCommit();
    }
    const res = await pending;
    expect(res.body.code).toBe(0);
    expect(await usedBytes(svc.db, user.id)).toBe(fixtureBytes('photo.webp').length);
    expect((await imageRows(svc.db, user.id)).map((row) => row.status)).toEqual(['stored']);
  });
});
