import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { migrateToLatest, openDb } from '@platform/kit';
import { createTestDatabase, describeWithRealServer, type TestDatabase } from '@platform/kit/testing';
import { loadConfig } from '../src/config';
import { openImagesService } from '../src/open-service';
import { expectConsistentStore, fixtureBytes, TEST_KEYS, testStorageEnv, userAdminFor } from './support/harness';
import type { TestBucket } from './support/s3-server';
import { migrationSource } from '../src/db/migration-source';

const mainFile = path.join(__dirname, '../src/main.ts');
const HOUR = 60 * 60 * 1000;

/**
 * The real thing: a service process killed with SIGKILL while it writes files, then a fresh one
 * recovering. Killed the moment a file appears in `area`, the process is most likely between that
 * file and the commit that follows it (the window the issue found); wherever it really was, the
 * invariant must hold after recovery. Needs real Postgres: PGlite's files are not written for a
 * process that dies mid-transaction.
 */
describeWithRealServer('TEST_DATABASE_URL', 'kill -9 while files are written (real Postgres)', () => {
  let database: TestDatabase;
  let dir: string;
  let env: Record<string, string>;
  let bucket: TestBucket | undefined;

  beforeEach(async () => {
    database = await createTestDatabase('images');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-crash-'));
    const storage = await testStorageEnv({});
    bucket = storage.bucket;
    env = { ...TEST_KEYS, DATABASE_URL: database.url, STORAGE_DIR: `${dir}/files`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', INIT_CWD: '', ...storage.env };
    for (const area of ['public', 'bin', 'thumbs', 'tmp']) fs.mkdirSync(`${dir}/files/${area}`, { recursive: true });
    // On S3, the test server's folder of the area: an object appears there as the bucket receives it.
    if (bucket) for (const area of ['public', 'bin']) fs.mkdirSync(bucket.areaDirectory('', area), { recursive: true });
  });
  afterEach(async () => {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function startAndKillWhenFileAppears(area: 'public' | 'bin', work: (port: number, token: string) => Promise<void>): Promise<void> {
    const db = await openDb(loadConfig(env).database, { migrationSource });
    await migrateToLatest(db);
    const { token } = await userAdminFor(db).createUser({ name: 'crash' });
    await db.destroy();
    const child = spawn(process.execPath, ['--import', 'tsx', mainFile], { cwd: path.join(__dirname, '..'), env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk) => {
        out += chunk;
        const match = /"port":(\d+).*images service listening/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      void exited.then(() => reject(new Error('exited before listening')));
    });
    const watcher = fs.watch(bucket ? bucket.areaDirectory('', area) : `${dir}/files/${area}`, { recursive: true }, () => {
      watcher.close();
      child.kill('SIGKILL');
    });
    try {
      await Promise.race([work(port, token).catch(() => undefined), exited]);
    } finally {
      watcher.close();
      child.kill('SIGKILL');
      await exited;
    }
  }

  async function recoverAndCheck(): Promise<void> {
    const service = await openImagesService(loadConfig(env), {
      logger: pino({ level: 'silent' }),
      clock: () => new Date(Date.now() + 2 * HOUR),
      housekeepingIntervalMs: null,
    });
    try {
      await service.runHousekeeping();
      await expectConsistentStore(service);
      expect(fs.readdirSync(`${dir}/files/tmp`)).toEqual([]);
    } finally {
      await service.close();
    }
  }

  const upload = (port: number, token: string) => {
    const form = new FormData();
    form.append('file', new Blob([fixtureBytes('photo.webp')]), 'crash.webp');
    return fetch(`http://127.0.0.1:${port}/api/image.php?action=upload`, { method: 'POST', headers: { 'X-API-Token': token }, body: form });
  };

  test('when the process is killed as an upload\'s original lands in public/, then after recovery no file is without its row and no bytes are charged for nothing', async () => {
    await startAndKillWhenFileAppears('public', async (port, token) => {
      await Promise.all([upload(port, token), upload(port, token), upload(port, token)]);
    });
    await recoverAndCheck();
  }, 60_000);

  test('when the process is killed as a deleted image\'s file lands in bin/, then after recovery the image is binned with its file', async () => {
    let uploaded: number[] = [];
    await startAndKillWhenFileAppears('bin', async (port, token) => {
      const answers = await Promise.all([upload(port, token), upload(port, token)]);
      uploaded = (await Promise.all(answers.map(async (answer) => (await answer.json()) as { data: { id: number } }))).map((body) => body.data.id);
      await Promise.all(uploaded.map((id) => fetch(`http://127.0.0.1:${port}/api/image.php?action=delete`, { method: 'POST', headers: { 'X-API-Token': token, 'Content-Type': 'application/json' }, body: JSON.stringify({ id }) })));
    });
    expect(uploaded).toHaveLength(2);
    await recoverAndCheck();
  }, 60_000);
});
