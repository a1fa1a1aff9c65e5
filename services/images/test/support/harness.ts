import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import pino from 'pino';
import type express from 'express';
import { loadConfig, type ImagesConfig } from '../../src/config';
import { openImagesService } from '../../src/open-service';
import { createUser } from '../../src/users/user-admin';
import { openTestDatabase } from './test-database';

export const MIB = 1024 * 1024;
export const FIXTURES = path.join(__dirname, '..', 'fixtures');
export const fixture = (name: string) => path.join(FIXTURES, name);
export const fixtureBytes = (name: string) => fs.readFileSync(fixture(name));

export const realDatabaseUrl = process.env.TEST_DATABASE_URL;

export interface TestService {
  app: express.Express;
  /** The app on a real socket (127.0.0.1, random port), for tests that speak raw HTTP. */
  server: http.Server;
  db: Knex;
  config: ImagesConfig;
  storageDir: string;
  /** Recovery of unfinished steps, the bin purge and the tmp/ sweep, once, now (as the hourly timer does). */
  runHousekeeping(): Promise<void>;
  /** Empties every table a test may fill and the storage tree; restores the default groups. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function openTestService(env: Record<string, string> = {}, options: { housekeepingIntervalMs?: number; logger?: pino.Logger; clock?: () => Date } = {}): Promise<TestService> {
  const database = await openTestDatabase('images');
  const storageDir = env.STORAGE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'images-test-'));
  const config = loadConfig({
    DATABASE_URL: database.url,
    STORAGE_DIR: storageDir,
    PUBLIC_BASE_URL: 'http://img.test',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const service = await openImagesService(config, { ...options, db: database.db, logger: options.logger ?? pino({ level: 'silent' }) });
  const server = http.createServer(service.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    app: service.app,
    server,
    db: service.db,
    config,
    storageDir,
    runHousekeeping: service.runHousekeeping,
    async reset() {
      await service.db.raw('TRUNCATE idempotency_keys, images, categories, users RESTART IDENTITY CASCADE');
      await service.db('groups').whereNotIn('name', ['default', 'vip']).delete();
      await service.db('groups').where({ name: 'default' }).update({ max_file_size: 10 * MIB, quota_bytes: 1024 * MIB });
      await service.db('groups').where({ name: 'vip' }).update({ max_file_size: 50 * MIB, quota_bytes: 20 * 1024 * MIB });
      for (const area of ['public', 'bin', 'thumbs', 'tmp']) {
        fs.rmSync(path.join(storageDir, area), { recursive: true, force: true });
        fs.mkdirSync(path.join(storageDir, area), { recursive: true });
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

export async function createTestUser(db: Knex, name = `u${randomBytes(4).toString('hex')}`, groupName?: string) {
  const { id, token } = await createUser(db, { name, groupName });
  return { id, token, name };
}

/** Every file under an area of the storage tree, relative to it. */
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

/** Local path of a public url: what nginx would serve for it. */
export function publicPathOf(storageDir: string, url: string): string {
  const key = url.replace(/^http:\/\/img\.test\/i\//, '');
  return path.join(storageDir, 'public', key);
}

/**
 * The store's invariant: every image at rest has exactly its files (stored: original in public/,
 * binned: in bin/; its thumbnail in thumbs/), no file is without its row, no row is mid-step, and
 * each user's used bytes are the sum of their images' sizes.
 */
export async function expectConsistentStore(db: Knex, storageDir: string): Promise<void> {
  const rows = await imageRows(db);
  expect(rows.filter((row) => row.status !== 'stored' && row.status !== 'binned')).toEqual([]);
  const expected = {
    public: rows.filter((row) => row.status === 'stored').map((row) => String(row.storage_key)).sort(),
    bin: rows.filter((row) => row.status === 'binned').map((row) => String(row.storage_key)).sort(),
    thumbs: rows.filter((row) => row.thumb_key !== null).map((row) => String(row.thumb_key)).sort(),
  };
  expect({ public: filesIn(storageDir, 'public'), bin: filesIn(storageDir, 'bin'), thumbs: filesIn(storageDir, 'thumbs') }).toEqual(expected);
  const users: Array<{ id: unknown; used_bytes: unknown }> = await db('users').select('id', 'used_bytes');
  for (const user of users) {
    const owned = rows.filter((row) => Number(row.user_id) === Number(user.id)).reduce((sum, row) => sum + Number(row.file_size), 0);
    expect({ user: Number(user.id), usedBytes: Number(user.used_bytes) }).toEqual({ user: Number(user.id), usedBytes: owned });
  }
}
