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
import { createTestDatabase } from './test-database';

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
  /** Empties every table a test may fill and the storage tree; restores the default groups. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function openTestService(env: Record<string, string> = {}, options: { housekeepingIntervalMs?: number; logger?: pino.Logger; clock?: () => Date } = {}): Promise<TestService> {
  const database = await createTestDatabase('images');
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-test-'));
  const config = loadConfig({
    DATABASE_URL: database.url,
    STORAGE_DIR: storageDir,
    PUBLIC_BASE_URL: 'http://img.test',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const service = await openImagesService(config, { ...options, logger: options.logger ?? pino({ level: 'silent' }) });
  const server = http.createServer(service.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    app: service.app,
    server,
    db: service.db,
    config,
    storageDir,
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
