import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import pino from 'pino';
import type express from 'express';
import { openTestDatabase } from '@platform/kit/testing';
import { loadConfig, type ImagesConfig } from '../../src/config';
import { openImagesService } from '../../src/open-service';
import { createCredentialsRepository } from '../../src/auth/credentials-repository';
import { createTokenVault } from '../../src/auth/token-vault';
import { createUserAdmin, type UserAdmin } from '../../src/users/user-admin';
import { createUsersRepository } from '../../src/users/users-repository';
import type { ObjectStore } from '../../src/storage/object-store';
import type { Storage } from '../../src/storage/storage';
import { STORAGE_AREAS, type StorageArea } from '../../src/storage/storage-keys';
import { createTestBucket, testStorageBackend, type TestBucket } from './s3-server';
import { imagesMigrations } from './service-migrations';

export const MIB = 1024 * 1024;
export const FIXTURES = path.join(__dirname, '..', 'fixtures');
export const fixture = (name: string) => path.join(FIXTURES, name);
export const fixtureBytes = (name: string) => fs.readFileSync(fixture(name));

export const realDatabaseUrl = process.env.TEST_DATABASE_URL;

/**
 * The keys every test service runs with, random per test file as an operator makes them: on real
 * Postgres the service refuses to start without keys of its own, and the admin functions below seal
 * tokens with the same key the service opens them with.
 */
export const TEST_KEYS: Readonly<{ THUMB_SIGNING_SECRET: string; TOKEN_ENCRYPTION_KEY: string }> = Object.freeze({
  THUMB_SIGNING_SECRET: randomBytes(32).toString('hex'),
  TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
});

export interface TestService {
  app: express.Express;
  /** The app on a real socket (127.0.0.1, random port), for tests that speak raw HTTP. */
  server: http.Server;
  db: Knex;
  config: ImagesConfig;
  storageDir: string;
  /** The service's storage: tmp/ and the local store, and the bucket when S3 is configured. */
  storage: Storage;
  /** The test bucket, when the service has one (TEST_STORAGE=s3, or S3_ variables given). */
  bucket?: TestBucket;
  /** Recovery of unfinished steps, the bin purge and the tmp/ sweep, once, now (as the hourly timer does). */
  runHousekeeping(): Promise<void>;
  /** The expiry job, once, now (as the every-minute timer does): how many images it binned. */
  runExpiry(): Promise<number>;
  /** Empties every table a test may fill and the storage tree; restores the default groups. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The storage variables of a test service: the local disk, or with TEST_STORAGE=s3 a new bucket on
 * the S3 test server (unless the test chose its backend itself).
 */
export async function testStorageEnv(env: Record<string, string> = {}): Promise<{ env: Record<string, string>; bucket?: TestBucket }> {
  if (env.STORAGE_BACKEND !== undefined || env.S3_BUCKET !== undefined || testStorageBackend() !== 's3') return { env };
  const bucket = await createTestBucket();
  return { env: { ...bucket.env, STORAGE_BACKEND: 's3', ...env }, bucket };
}

export async function openTestService(
  env: Record<string, string> = {},
  options: { housekeepingIntervalMs?: number; logger?: pino.Logger; clock?: () => Date; bucket?: TestBucket } = {},
): Promise<TestService> {
  const database = await openTestDatabase('images', imagesMigrations);
  const storageDir = env.STORAGE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'images-test-'));
  const storage = await testStorageEnv(env);
  const bucket = options.bucket ?? storage.bucket;
  const config = loadConfig({
    ...TEST_KEYS,
    DATABASE_URL: database.url,
    STORAGE_DIR: storageDir,
    PUBLIC_BASE_URL: 'http://img.test',
    LOG_LEVEL: 'silent',
    ...storage.env,
  });
  // Housekeeping runs when a test calls runHousekeeping, never on a timer unless the test sets one:
  // a sweep at an unplanned moment purges the bin items a test dated months back.
  const service = await openImagesService(config, {
    ...options,
    housekeepingIntervalMs: options.housekeepingIntervalMs ?? null,
    db: database.db,
    logger: options.logger ?? pino({ level: 'silent' }),
  });
  const server = http.createServer(service.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    app: service.app,
    server,
    db: service.db,
    config,
    storageDir,
    storage: service.storage,
    bucket,
    runHousekeeping: service.runHousekeeping,
    runExpiry: service.runExpiry,
    async reset() {
      await service.db.raw('TRUNCATE idempotency_keys, images, categories, credentials, sign_in_limits, users, import_records, site_settings RESTART IDENTITY CASCADE');
      await service.db('groups').whereNotIn('name', ['default', 'vip']).delete();
      await service.db('groups').where({ name: 'default' }).update({ max_file_size: 10 * MIB, quota_bytes: 1024 * MIB });
      await service.db('groups').where({ name: 'vip' }).update({ max_file_size: 50 * MIB, quota_bytes: 20 * 1024 * MIB });
      for (const area of ['public', 'bin', 'thumbs', 'tmp']) {
        fs.rmSync(path.join(storageDir, area), { recursive: true, force: true });
        fs.mkdirSync(path.join(storageDir, area), { recursive: true });
      }
      for (const store of service.storage.configured) {
        if (store.backend === 'local') continue;
        for (const area of STORAGE_AREAS) for await (const key of store.list(area)) await store.remove(area, key);
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
      await database.drop();
      fs.rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

/**
 * The service of a test file (or of a describe block): opened before its tests, emptied (`reset`) before
 * each one, closed after them. The handle stands for the open service: read its members inside tests and
 * hooks, not when the file loads.
 */
export function useTestService(env: Record<string, string> = {}, options: Parameters<typeof openTestService>[1] = {}): TestService {
  let svc: TestService | undefined;
  beforeAll(async () => {
    svc = await openTestService(env, options);
  });
  afterAll(async () => svc?.close());
  beforeEach(async () => svc!.reset());
  return new Proxy({} as TestService, {
    get(_target, key) {
      if (!svc) throw new Error(`the test service is not open yet (read .${String(key)} inside a test or hook)`);
      return Reflect.get(svc, key);
    },
  });
}

/** The service's user rules on `db`, with the configuration's defaults (as the admin CLI builds them). */
export function userAdminFor(db: Knex, config: Pick<ImagesConfig, 'tokenEncryptionKey' | 'maxUploadBytes'> = loadConfig({ ...TEST_KEYS })): UserAdmin {
  return createUserAdmin({
    users: createUsersRepository(db),
    credentials: createCredentialsRepository(db),
    vault: createTokenVault(config.tokenEncryptionKey),
    maxUploadBytes: config.maxUploadBytes,
  });
}

export async function createTestUser(
  db: Knex,
  name = `u${randomBytes(4).toString('hex')}`,
  groupName?: string,
  options: { password?: string; isAdmin?: boolean } = {},
) {
  const { id, token } = await userAdminFor(db).createUser({ name, groupName, ...options });
  return { id, token, name };
}

/** Every file under an area of the local storage tree, relative to it. */
export function filesIn(storageDir: string, area: 'public' | 'bin' | 'thumbs' | 'tmp'): string[] {
  const root = path.join(storageDir, area);
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .filter((entry) => fs.statSync(path.join(root, entry)).isFile())
    .map((entry) => entry.split(path.sep).join('/'))
    .sort();
}

export async function usedBytes(db: Knex, userId: number): Promise<number> {
  const row = await db('users').where({ id: userId }).first('used_bytes');
  return Number(row.used_bytes);
}

export async function imageRows(db: Knex, userId?: number): Promise<Array<Record<string, unknown>>> {
  const query = db('images').orderBy('id');
  if (userId !== undefined) query.where({ user_id: userId });
  return query.select('*');
}

/** The storage with its store of new uploads replaced by `replacement` (a wrapper that fails or holds a step). */
export function withCurrentStore(storage: Storage, replacement: ObjectStore): Storage {
  const current = storage.current;
  return {
    ...storage,
    current: replacement,
    configured: storage.configured.map((candidate) => (candidate === current ? replacement : candidate)),
    storeFor: (backend) => (backend === current.backend ? replacement : storage.storeFor(backend)),
  };
}

/** Every key of an area, in every configured backend (a key in two backends is listed twice). */
export async function storedKeys(svc: { storage: Storage }, area: StorageArea): Promise<string[]> {
  const keys: string[] = [];
  for (const store of svc.storage.configured) for await (const key of store.list(area)) keys.push(key);
  return keys.sort();
}

/** The storage key of a public url. */
export function keyOfUrl(url: string): string {
  return url.replace(/^https?:\/\/[^/]+\/i\//, '');
}

/** The bytes stored for a public url (what nginx serves for it), from the backend of new uploads; null when there are none. */
export async function publicBytes(svc: { storage: Storage }, url: string): Promise<Buffer | null> {
  const opened = await svc.storage.current.open('public', keyOfUrl(url));
  if (!opened) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of opened.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The store's invariant: every image at rest has exactly its objects in the backend its row names
 * (stored: original in public/, binned: in bin/; its thumbnail in thumbs/) and none in any other,
 * no object is without its row, no row is mid-step or has migration leftovers, and each user's used
 * bytes are the sum of their images' sizes.
 */
export async function expectConsistentStore(svc: { db: Knex; storage: Storage }): Promise<void> {
  const { db } = svc;
  const rows = await imageRows(db);
  expect(rows.filter((row) => row.status !== 'stored' && row.status !== 'binned')).toEqual([]);
  expect(rows.filter((row) => row.storage_leftover !== null)).toEqual([]);
  for (const store of svc.storage.configured) {
    const own = rows.filter((row) => row.storage_backend === store.backend);
    const expected = {
      backend: store.backend,
      public: own.filter((row) => row.status === 'stored').map((row) => String(row.storage_key)).sort(),
      bin: own.filter((row) => row.status === 'binned').map((row) => String(row.storage_key)).sort(),
      thumbs: own.filter((row) => row.thumb_key !== null).map((row) => String(row.thumb_key)).sort(),
    };
    const actual: Record<string, unknown> = { backend: store.backend };
    for (const area of STORAGE_AREAS) {
      const keys: string[] = [];
      for await (const key of store.list(area)) keys.push(key);
      actual[area] = keys.sort();
    }
    expect(actual).toEqual(expected);
  }
  const users: Array<{ id: unknown; used_bytes: unknown }> = await db('users').select('id', 'used_bytes');
  for (const user of users) {
    const owned = rows.filter((row) => Number(row.user_id) === Number(user.id)).reduce((sum, row) => sum + Number(row.file_size), 0);
    expect({ user: Number(user.id), usedBytes: Number(user.used_bytes) }).toEqual({ user: Number(user.id), usedBytes: owned });
  }
  await expectExactCounts(db);
}

/** The list counters (image_counts) equal a count of the rows, for every user, category and resting state. */
export async function expectExactCounts(db: Knex): Promise<void> {
  const key = (row: Record<string, unknown>) => `${row.user_id}/${row.category_id}/${row.status}`;
  const counted: Array<Record<string, unknown>> = await db('images')
    .whereIn('status', ['stored', 'binned'])
    .groupBy('user_id', 'category_id', 'status')
    .select('user_id', 'category_id', 'status')
    .count({ count: '*' });
  const kept: Array<Record<string, unknown>> = await db('image_counts').where('count', '<>', 0).select('user_id', 'category_id', 'status', 'count');
  const asMap = (rows: Array<Record<string, unknown>>) => Object.fromEntries(rows.map((row) => [key(row), Number(row.count)]).sort());
  expect(asMap(kept)).toEqual(asMap(counted));
}

let distinctCounter = 0;

/**
 * The fixture's bytes made a different upload (uploads of the same content by one user are answered
 * with the image already stored: deduplication), storing the same bytes as the fixture: a PNG gets a
 * tEXt chunk and a JPEG a comment, both of which the metadata stripper drops.
 */
export function distinctBytes(name: string): Buffer {
  const bytes = fixtureBytes(name);
  const tag = Buffer.from(`distinct ${(distinctCounter += 1)} ${process.pid}`, 'latin1');
  if (name.endsWith('.png')) {
    const data = Buffer.concat([Buffer.from('Comment\0', 'latin1'), tag]);
    const chunk = Buffer.alloc(12 + data.length);
    chunk.writeUInt32BE(data.length, 0);
    chunk.write('tEXt', 4, 'latin1');
    data.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
    const afterHeader = 8 + 12 + bytes.readUInt32BE(8); // signature, then IHDR
    return Buffer.concat([bytes.subarray(0, afterHeader), chunk, bytes.subarray(afterHeader)]);
  }
  if (name.endsWith('.jpg') || name.endsWith('.jpeg')) {
    // After SOI and a leading JFIF APP0 (which must stay first).
    let at = 2;
    if (bytes[2] === 0xff && bytes[3] === 0xe0) at = 4 + bytes.readUInt16BE(4);
    const segment = Buffer.alloc(4 + tag.length);
    segment[0] = 0xff;
    segment[1] = 0xfe;
    segment.writeUInt16BE(2 + tag.length, 2);
    tag.copy(segment, 4);
    return Buffer.concat([bytes.subarray(0, at), segment, bytes.subarray(at)]);
  }
  throw new Error(`distinctBytes: no way to vary ${name}`);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
