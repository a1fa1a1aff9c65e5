import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { describeWithRealServer } from '@platform/kit/testing';
import { runAdminCommand } from '../src/admin/commands';
import { describeProgress } from '../src/admin/storage-progress';
import { createApp, createServices } from '../src/app';
import { loadConfig, type ImagesConfig } from '../src/config';
import { createImagesRepository } from '../src/images/images-repository';
import { createMediaProcessor } from '../src/media/media-processor';
import { createMetrics } from '../src/metrics/metrics';
import { openImagesService } from '../src/open-service';
import type { ObjectStore, StorageBackend } from '../src/storage/object-store';
import type { Storage } from '../src/storage/storage';
import { createTestUser, distinctBytes, expectConsistentStore, filesIn, fixture, fixtureBytes, imageRows, openTestService, storedKeys, TEST_KEYS, usedBytes, type TestService } from './support/harness';
import { createTestBucket, describeWithS3, type TestBucket } from './support/s3-server';

// storage:migrate between the local disk and a real S3-protocol server (s3rver on loopback): every
// object moved and verified, the service serving throughout, and a run stopped part-way resuming.

const API = '/api/image.php';

describeWithS3('storage:migrate between the local disk and S3', () => {
  let bucket: TestBucket;
  let svc: TestService;
  beforeAll(async () => {
    bucket = await createTestBucket();
    // The service starts on the local disk with the bucket configured, as an operator has it before
    // moving: new uploads local, the bucket reachable.
    svc = await openTestService({ ...bucket.env, STORAGE_BACKEND: 'local' }, { bucket });
  });
  afterAll(async () => svc?.close());
  beforeEach(async () => svc.reset());

  const configFor = (backend: StorageBackend): ImagesConfig => ({ ...svc.config, storageBackend: backend });

  async function migrate(to: StorageBackend) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdminCommand(['storage:migrate', '--to', to], { db: svc.db, config: configFor(to), out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out, err };
  }

  /** Three images of one user: one stored with a thumbnail, one that is its own thumbnail, one in the bin. */
  async function seed() {
    const user = await createTestUser(svc.db);
    const upload = async (file: string) => (await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixture(file))).body.data;
    const photo = await upload('photo.webp');
    const tiny = await upload('tiny.gif');
    const binned = await upload('alpha.png');
    expect((await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: binned.id })).body.code).toBe(0);
    return { user, photo, tiny, binned };
  }

  const backends = async () => (await imageRows(svc.db)).map((row) => row.storage_backend);
  const thumb = (url: string) => request(svc.app).get(url.replace('http://img.test', '')).buffer(true);

  test('when every image moves to S3 and back, then each object arrives byte for byte, the rows follow, and the old backend is left empty', async () => {
    const { user, photo, tiny, binned } = await seed();
    const used = await usedBytes(svc.db, user.id);
    const before = { photo: (await thumb(photo.thumb_url)).body as Buffer, tiny: (await thumb(tiny.thumb_url)).body as Buffer };
    expect(await backends()).toEqual(['local', 'local', 'local']);

    const toS3 = await migrate('s3');
    expect(toS3.code).toBe(0);
    expect(toS3.out.at(-2)).toMatch(/^moved 3 image\(s\) to s3 \([\d.]+ MiB, each object read back and compared\)$/);
    expect(toS3.out.at(-1)).toBe('every image is on s3');
    // Without a terminal: plain progress lines, the last one complete.
    expect(toS3.out).toContainEqual(expect.stringMatching(/^\[#{30}\] 100% {2}3\/3 images {2}[\d.]+ MiB$/));
    expect(await backends()).toEqual(['s3', 's3', 's3']);
    for (const area of ['public', 'bin', 'thumbs'] as const) expect(filesIn(svc.storageDir, area)).toEqual([]);
    const s3 = svc.storage.storeFor('s3');
    const keys = { public: [] as string[], bin: [] as string[], thumbs: [] as string[] };
    for (const area of ['public', 'bin', 'thumbs'] as const) for await (const key of s3.list(area)) keys[area].push(key);
    expect(keys.public.sort()).toEqual([photo.url, tiny.url].map((url: string) => url.replace('http://img.test/i/', '')).sort());
    expect(keys.bin).toEqual([binned.url.replace('http://img.test/i/', '')]);
    expect(keys.thumbs).toHaveLength(2);
    await expectConsistentStore(svc);
    expect(await usedBytes(svc.db, user.id)).toBe(used);

    // The service (still configured local) serves the moved images from the bucket, and the bin works there.
    expect((await thumb(photo.thumb_url)).body.equals(before.photo)).toBe(true);
    expect((await thumb(tiny.thumb_url)).body.equals(before.tiny)).toBe(true);
    const restored = await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: binned.id });
    expect(restored.body.code).toBe(0);
    expect(await s3.exists('public', binned.url.replace('http://img.test/i/', ''))).toBe(true);
    await expectConsistentStore(svc);

    const toLocal = await migrate('local');
    expect(toLocal.code).toBe(0);
    expect(toLocal.out.at(-1)).toBe('every image is on local');
    expect(await backends()).toEqual(['local', 'local', 'local']);
    expect(fs.readFileSync(path.join(svc.storageDir, 'public', tiny.url.replace('http://img.test/i/', ''))).equals(fixtureBytes('tiny.gif'))).toBe(true);
    for (const area of ['public', 'bin', 'thumbs'] as const) {
      const left: string[] = [];
      for await (const key of s3.list(area)) left.push(key);
      expect(left).toEqual([]);
    }
    expect((await thumb(photo.thumb_url)).body.equals(before.photo)).toBe(true);
    await expectConsistentStore(svc);
    expect(await usedBytes(svc.db, user.id)).toBe(used);
  });

  test.each(['local', 's3'] as const)('when the %s store puts a temp file, then it takes it: stored byte for byte and gone from tmp/; putBytes leaves nothing in tmp/ either', async (backend) => {
    const store = svc.storage.storeFor(backend);
    const originalKey = `2026/01/02/${'a'.repeat(32)}.webp`;
    const thumbKey = `2026/01/02/${'b'.repeat(32)}.webp`;
    const temp = svc.storage.temp.newTempPath();
    fs.copyFileSync(fixture('photo.webp'), temp);
    await store.putFile('public', originalKey, temp, 'image/webp');
    expect(fs.existsSync(temp)).toBe(false);
    await store.putBytes('thumbs', thumbKey, Buffer.from('thumbnail'), 'image/webp');
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    const read = async (area: 'public' | 'thumbs', key: string) => {
      const opened = (await store.open(area, key))!;
      const chunks: Buffer[] = [];
      for await (const chunk of opened.body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    };
    expect((await read('public', originalKey)).equals(fixtureBytes('photo.webp'))).toBe(true);
    expect((await read('thumbs', thumbKey)).toString()).toBe('thumbnail');
    await store.remove('public', originalKey);
    await store.remove('thumbs', thumbKey);
  });

  test('when nothing is left to move, then a run says so and succeeds; storage:status counts each backend', async () => {
    await seed();
    expect((await migrate('s3')).code).toBe(0);
    const again = await migrate('s3');
    expect(again).toEqual({ code: 0, out: [describeProgress({ done: 0, total: 0, moved: 0, failed: 0, bytes: 0 }), 'moved 0 image(s) to s3 (0.0 MiB, each object read back and compared)', 'every image is on s3'], err: [] });
    const out: string[] = [];
    expect(await runAdminCommand(['storage:status'], { db: svc.db, config: configFor('s3'), out: (line) => out.push(line), err: () => undefined })).toBe(0);
    expect(out).toEqual(['new uploads go to: s3', 'backend\timages\tmid_step', 'local\t0\t0', 's3\t3\t0']);
  });

  test('when the bucket is not configured, then storage:migrate refuses with a clear message; a wrong --to is a usage error', async () => {
    const err: string[] = [];
    const code = await runAdminCommand(['storage:migrate', '--to', 's3'], { db: svc.db, config: { ...svc.config, s3: undefined }, out: () => undefined, err: (line) => err.push(line) });
    expect([code, err[0]]).toEqual([1, 'error: storage:migrate needs the bucket: set S3_BUCKET (and S3_ENDPOINT, S3_REGION, ... as the service has them)']);
    expect((await runAdminCommand(['storage:migrate', '--to', 'ftp'], { db: svc.db, config: svc.config, out: () => undefined, err: () => undefined }))).toBe(2);
  });

  /** The service's storage with the target's `failAt`-th putFile failing (a network cut). */
  function storageFailingAt(failAt: number): Storage {
    const target = svc.storage.storeFor('s3');
    let calls = 0;
    const failing: ObjectStore = {
      ...target,
      async putFile(...args: Parameters<ObjectStore['putFile']>) {
        calls += 1;
        if (calls === failAt) throw new Error('connection reset by the store');
        return target.putFile(...args);
      },
    };
    return { ...svc.storage, configured: [svc.storage.local, failing], storeFor: (backend) => (backend === 's3' ? failing : svc.storage.local) };
  }

  function servicesOn(storage: Storage) {
    return createServices({ config: configFor('s3'), db: svc.db, storage, media: createMediaProcessor(), metrics: createMetrics(), logger: pino({ level: 'silent' }) });
  }

  test('when storage:migrate runs with --concurrency 4, then four images are copied at once (on Postgres), every object is verified, and the store ends consistent', async () => {
    const { user } = await seed();
    // Five more pictures of their own (the same one again would be answered with the image already stored).
    for (let i = 0; i < 5; i += 1) {
      expect((await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png')).body.code).toBe(0);
    }
    // The target's first four writes wait for one another: the run goes on only if four images are in
    // flight at once. Each holds a database connection (its row lock): PGlite has one, so there the
    // images go one at a time whatever the flag says.
    const atOnce = svc.config.database.kind === 'postgres' ? 4 : 1;
    const target = svc.storage.storeFor('s3');
    let waiting = 0;
    let release!: () => void;
    const allTogether = new Promise<void>((resolve) => (release = resolve));
    const gated: ObjectStore = {
      ...target,
      async putFile(...args: Parameters<ObjectStore['putFile']>) {
        if (waiting < atOnce) {
          waiting += 1;
          if (waiting === atOnce) release();
          await allTogether;
        }
        return target.putFile(...args);
      },
    };
    const storage: Storage = { ...svc.storage, configured: [svc.storage.local, gated], storeFor: (backend) => (backend === 's3' ? gated : svc.storage.local) };
    const report = await servicesOn(storage).storageMigration.migrate('s3', undefined, { concurrency: 4 });
    expect(report).toMatchObject({ moved: 8, failed: 0, remaining: 0, failures: [] });
    expect(await backends()).toEqual(Array(8).fill('s3'));
    await expectConsistentStore(svc);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);

    // From the command line: the flag is checked, and a run with nothing left to move says so.
    const again = await runAdminCommand(['storage:migrate', '--to', 's3', '--concurrency', '16'], { db: svc.db, config: configFor('s3'), out: () => undefined, err: () => undefined });
    expect(again).toBe(0);
    for (const bad of ['0', '65', 'x', '2.5']) {
      const err: string[] = [];
      const code = await runAdminCommand(['storage:migrate', '--to', 's3', '--concurrency', bad], { db: svc.db, config: configFor('s3'), out: () => undefined, err: (line) => err.push(line) });
      expect([bad, code]).toEqual([bad, 2]);
    }
  });

  test('when a run is cut off part-way, then the image being copied stays where it was, its temp copy is removed, and the next run resumes and finishes', async () => {
    const { photo, tiny, binned } = await seed();
    // The second original fails: the first image is moved, the second stays local, with no stray copy left in the bucket.
    // One image at a time, so that the third copy is the second image's original.
    const cut = await servicesOn(storageFailingAt(3)).storageMigration.migrate('s3', undefined, { concurrency: 1 });
    expect(cut).toMatchObject({ moved: 2, failed: 1, remaining: 1, failures: [{ imageId: tiny.id, reason: 'connection reset by the store' }] });
    expect(await backends()).toEqual(['s3', 'local', 's3']);
    await expectConsistentStore(svc);
    // The copy the store refused was removed from tmp/; the ones it took are gone from there too.
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    // Still served from where it is.
    expect((await thumb(tiny.thumb_url)).status).toBe(200);
    expect((await thumb(photo.thumb_url)).status).toBe(200);

    const resumed = await migrate('s3');
    expect(resumed.code).toBe(0);
    expect(resumed.out.at(-2)).toMatch(/^moved 1 image\(s\) to s3/);
    expect(await backends()).toEqual(['s3', 's3', 's3']);
    await expectConsistentStore(svc);
    expect((await thumb(binned.thumb_url)).status).toBe(404);
  });

  test('when a run stopped after moving an image but before removing the old copy, then the copy never serves a binned image, and the next run removes it', async () => {
    const { user, photo } = await seed();
    const images = createImagesRepository(svc.db);
    const s3 = svc.storage.storeFor('s3');
    const key = photo.url.replace('http://img.test/i/', '');
    // The first half of moving one image, as a run that died right after its commit leaves it.
    const moved = await images.moveBackend(photo.id, 'local', 's3', async (image) => {
      const temp = svc.storage.temp.newTempPath();
      fs.copyFileSync(path.join(svc.storageDir, 'public', image.storageKey), temp);
      await s3.putFile('public', image.storageKey, temp, 'image/webp');
      const thumbTemp = svc.storage.temp.newTempPath();
      fs.copyFileSync(path.join(svc.storageDir, 'thumbs', image.thumbKey!), thumbTemp);
      await s3.putFile('thumbs', image.thumbKey!, thumbTemp, 'image/webp');
    });
    expect(moved).toMatchObject({ storageBackend: 's3', storageLeftover: 'local' });
    expect(fs.existsSync(path.join(svc.storageDir, 'public', key))).toBe(true);

    // nginx tries the local disk before the bucket: binning must take the old copy out of public/ too.
    expect((await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: photo.id })).body.code).toBe(0);
    expect(fs.existsSync(path.join(svc.storageDir, 'public', key))).toBe(false);
    expect(await s3.exists('bin', key)).toBe(true);

    const resumed = await migrate('s3');
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain('removed the old copies of 1 image(s) an interrupted run had moved');
    await expectConsistentStore(svc);
  });

  test('when an image is deleted while its objects are being copied, then the delete waits for the copy and happens in the new backend', async () => {
    const { user, photo } = await seed();
    const target = svc.storage.storeFor('s3');
    let reached!: () => void;
    const atCopy = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: ObjectStore = {
      ...target,
      async putFile(...args: Parameters<ObjectStore['putFile']>) {
        if (args[1] === photo.url.replace('http://img.test/i/', '')) {
          reached();
          await released;
        }
        return target.putFile(...args);
      },
    };
    const storage: Storage = { ...svc.storage, configured: [svc.storage.local, held], storeFor: (backend) => (backend === 's3' ? held : svc.storage.local) };
    const running = servicesOn(storage).storageMigration.migrate('s3');
    await atCopy;
    const deleting = request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: photo.id }).then((res) => res);
    release();
    const [report, deleted] = await Promise.all([running, deleting]);
    expect(report).toMatchObject({ moved: 3, failed: 0, remaining: 0 });
    expect(deleted.body).toEqual({ code: 0, msg: '删除成功' });
    expect((await imageRows(svc.db)).find((row) => Number(row.id) === photo.id)).toMatchObject({ status: 'binned', storage_backend: 's3' });
    expect(await storedKeys(svc, 'public')).toHaveLength(1);
    await expectConsistentStore(svc);
  });
});

describeWithS3('the S3 backend', () => {
  test('when images are stored in S3 and the service is started without the bucket, then it refuses to start, saying why', async () => {
    const bucket = await createTestBucket();
    const svc = await openTestService({ ...bucket.env, STORAGE_BACKEND: 's3' }, { bucket });
    try {
      const user = await createTestUser(svc.db);
      expect((await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixture('tiny.png'))).body.code).toBe(0);
      const config = loadConfig({ DATABASE_URL: 'pglite:memory', STORAGE_DIR: svc.storageDir, LOG_LEVEL: 'silent' });
      await expect(openImagesService(config, { db: svc.db, logger: pino({ level: 'silent' }) })).rejects.toThrow(
        '1 image(s) are stored on s3, which is not configured: set S3_BUCKET and the other S3_ variables (or run storage:migrate with them set)',
      );
    } finally {
      await svc.close();
    }
  });

  test('when the bucket fails while an upload writes its objects, then 500, and the original already in the bucket is removed, the row dropped, the charge refunded', async () => {
    const bucket = await createTestBucket();
    const svc = await openTestService({ ...bucket.env, STORAGE_BACKEND: 's3' }, { bucket });
    try {
      const user = await createTestUser(svc.db);
      const store = svc.storage.current;
      // The original goes in; the thumbnail meets a store that has stopped answering.
      const failing: ObjectStore = { ...store, putBytes: async () => Promise.reject(new Error('socket hang up')) };
      const storage: Storage = { ...svc.storage, current: failing, configured: [svc.storage.local, failing], storeFor: (backend) => (backend === 's3' ? failing : svc.storage.local) };
      const app = createApp({ config: svc.config, db: svc.db, storage, media: createMediaProcessor(), metrics: createMetrics(), logger: pino({ level: 'silent' }) });
      const res = await request(app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
      expect([res.status, res.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
      expect(await imageRows(svc.db)).toEqual([]);
      expect(await usedBytes(svc.db, user.id)).toBe(0);
      for (const area of ['public', 'bin', 'thumbs'] as const) expect(await storedKeys(svc, area)).toEqual([]);
      expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    } finally {
      await svc.close();
    }
  });

  test('when two services share a bucket under different prefixes, then neither sees the other\'s objects', async () => {
    const bucket = await createTestBucket();
    const first = await openTestService({ ...bucket.env, STORAGE_BACKEND: 's3', S3_PREFIX: 'site-a' }, { bucket });
    const second = await openTestService({ ...bucket.env, STORAGE_BACKEND: 's3', S3_PREFIX: 'site-b/' }, { bucket });
    try {
      expect([first.config.s3?.prefix, second.config.s3?.prefix]).toEqual(['site-a/', 'site-b/']);
      const user = await createTestUser(first.db);
      const image = (await request(first.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixture('photo.webp'))).body.data;
      expect(await storedKeys(first, 'public')).toEqual([image.url.replace('http://img.test/i/', '')]);
      expect(await storedKeys(second, 'public')).toEqual([]);
      // Read anonymously, as nginx reads /i/ from the bucket: under the prefix, with the image's type.
      const res = await fetch(`${bucket.env.S3_ENDPOINT}/${bucket.bucket}/site-a/public/${image.url.replace('http://img.test/i/', '')}`);
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/webp']);
      expect(Buffer.from(await res.arrayBuffer()).equals(fixtureBytes('photo.webp'))).toBe(true);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

/**
 * The real interruption: the CLI process killed with SIGKILL the moment the bucket receives its
 * first object, then run again. Needs real Postgres (the CLI is a second process on the database).
 */
describeWithS3('storage:migrate killed and run again', () => {
  describeWithRealServer('TEST_DATABASE_URL', 'with real Postgres', () => {
    test('when the migrating process is killed mid-copy, then the next run resumes and every image ends in S3, verified', async () => {
      const bucket = await createTestBucket();
      const svc = await openTestService({ ...bucket.env, STORAGE_BACKEND: 'local' }, { bucket });
      try {
        const user = await createTestUser(svc.db);
        for (const file of ['photo.webp', 'alpha.png', 'tiny.gif', 'photo.avif']) {
          expect((await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixture(file))).body.code).toBe(0);
        }
        const env = {
          ...bucket.env,
          ...TEST_KEYS,
          DATABASE_URL: svc.config.databaseUrl,
          STORAGE_DIR: svc.storageDir,
          STORAGE_BACKEND: 's3',
          LOG_LEVEL: 'silent',
          INIT_CWD: '',
        };
        const watched = bucket.areaDirectory('', 'public');
        fs.mkdirSync(watched, { recursive: true });
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'storage:migrate', '--to', 's3'], {
          cwd: path.join(__dirname, '..'),
          env: { ...process.env, NODE_OPTIONS: '', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
        const watcher = fs.watch(watched, { recursive: true }, () => {
          watcher.close();
          child.kill('SIGKILL');
        });
        try {
          expect(await exited).toBeNull();
        } finally {
          watcher.close();
        }
        const partway = (await imageRows(svc.db)).map((row) => row.storage_backend);
        expect(partway.filter((backend) => backend === 'local').length).toBeGreaterThan(0);

        const out: string[] = [];
        const code = await runAdminCommand(['storage:migrate', '--to', 's3'], { db: svc.db, config: { ...svc.config, storageBackend: 's3' }, out: (line) => out.push(line), err: () => undefined });
        expect(code).toBe(0);
        expect(out.at(-1)).toBe('every image is on s3');
        expect((await imageRows(svc.db)).map((row) => row.storage_backend)).toEqual(['s3', 's3', 's3', 's3']);
        await expectConsistentStore(svc);
      } finally {
        await svc.close();
      }
    });
  });
});
