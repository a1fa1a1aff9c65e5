import pino from 'pino';
import request from 'supertest';
import { describeWithRealServer } from '@platform/kit/testing';
import { createApp } from '../src/app';
import { createMediaProcessor } from '../src/media/media-processor';
import { createMetrics } from '../src/metrics/metrics';
import type { ObjectStore } from '../src/storage/object-store';
import { createTestUser, expectConsistentStore, filesIn, storedKeys, fixture, fixtureBytes, imageRows, openTestService, usedBytes, withCurrentStore, type TestService, distinctBytes } from './support/harness';

// Needs real Postgres: PGlite has a single connection, so it cannot show a lost-update race.
describeWithRealServer('TEST_DATABASE_URL', 'quota under concurrency (real Postgres)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService();
  });
  afterAll(async () => svc?.close());

  test('when 20 uploads race against a quota that fits 5, then exactly 5 are stored and used bytes equal their sum', async () => {
    const user = await createTestUser(svc.db);
    // Twenty different pictures (the same one twenty times would be one image: deduplication).
    const size = fixtureBytes('tiny.png').length;
    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: size * 5 });

    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png'),
      ),
    );

    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(results.filter((r) => r.body.code === 0)).toHaveLength(5);
    expect(results.filter((r) => r.body.code === 1).map((r) => r.body.msg)).toEqual(Array(15).fill('存储空间不足'));
    const rows = await imageRows(svc.db, user.id);
    expect(rows).toHaveLength(5);
    expect(await usedBytes(svc.db, user.id)).toBe(rows.reduce((sum, row) => sum + Number(row.file_size), 0));
    expect(await usedBytes(svc.db, user.id)).toBe(size * 5);
    expect(await storedKeys(svc, 'public')).toHaveLength(5);
    expect(await storedKeys(svc, 'thumbs')).toHaveLength(5);
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
    const store = svc.storage.current;
    let reachedCommit!: () => void;
    const atCommit = new Promise<void>((resolve) => (reachedCommit = resolve));
    let releaseCommit!: () => void;
    const released = new Promise<void>((resolve) => (releaseCommit = resolve));
    // Holds the upload right where the files are made durable: after the charge and the pending row.
    // (The original of an upload received into memory is put as bytes, one received into tmp/ as a file.)
    const hold = async (): Promise<void> => {
      reachedCommit();
      await released;
    };
    const heldStore: ObjectStore = {
      ...store,
      async putFile(...args: Parameters<ObjectStore['putFile']>) {
        await hold();
        return store.putFile(...args);
      },
      async putBytes(...args: Parameters<ObjectStore['putBytes']>) {
        await hold();
        return store.putBytes(...args);
      },
    };
    const heldStorage = withCurrentStore(svc.storage, heldStore);
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
  test('when bulk deletes, restores and purges race over the same ids on real Postgres, then each image ends in one state and used bytes equal what remains', async () => {
    await svc.reset();
    const user = await createTestUser(svc.db);
    const send = (action: string, ids: number[]) => request(svc.app).post(`/api/image.php?action=${action}`).set('X-API-Token', user.token).send({ ids });
    const ids: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      ids.push((await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png')).body.data.id);
    }
    expect((await send('delete', ids)).body.data.succeeded).toBe(12);

    const answers = await Promise.all([send('purge', ids), send('purge', [...ids].reverse()), send('restore', ids), send('purge', ids.slice(0, 6))]);

    // Every id succeeded in at most one purge, and an image restored was not purged.
    const purgedBy = new Map<number, number>();
    for (const answer of [answers[0], answers[1], answers[3]]) {
      for (const result of answer!.body.data.results) if (result.ok) purgedBy.set(result.id, (purgedBy.get(result.id) ?? 0) + 1);
    }
    expect([...purgedBy.values()].every((count) => count === 1)).toBe(true);
    const restored = answers[2]!.body.data.results.filter((result: { ok: boolean }) => result.ok).map((result: { id: number }) => result.id);
    expect(restored.filter((id: number) => purgedBy.has(id))).toEqual([]);
    expect(purgedBy.size + restored.length).toBe(12);
    const rows = await imageRows(svc.db, user.id);
    expect(rows.map((row) => Number(row.id)).sort((a, b) => a - b)).toEqual([...restored].sort((a, b) => a - b));
    expect(rows.every((row) => row.status === 'stored')).toBe(true);
    expect(await usedBytes(svc.db, user.id)).toBe(rows.reduce((sum, row) => sum + Number(row.file_size), 0));
    await expectConsistentStore(svc);
  });
});
