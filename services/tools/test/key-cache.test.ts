import crypto from 'node:crypto';
import request from 'supertest';
import type { RedisClient } from '../src/ratelimit/redis-connection';
import type { Express } from 'express';
import { describeWithRealServer } from '@platform/kit/testing';
import { runAdminCommand } from '../src/admin/commands';
import { memoryKeyVersion, redisKeyVersion, type KeyVersion } from '../src/auth/key-version';
import { openRedis } from '../src/ratelimit/redis-connection';
import { createRequestLimiter } from '../src/ratelimit/request-limiter';
import { createKey, importJson, openHarness, silentLogger, smallCatalog, type Harness } from './support/harness';

const STATS = '/api/index.php?action=stats';

async function admin(harness: Harness, argv: string[], keyVersion: KeyVersion | undefined) {
  const err: string[] = [];
  const status = await runAdminCommand(argv, { db: harness.db, keyVersion, defaultRateLimitPerHour: 1000, out: () => undefined, err: (line) => err.push(line) });
  return { status, err };
}

/** Counts the key lookups that reach the database. */
function countKeyQueries(harness: Harness): { count(): number; stop(): void } {
  let lookups = 0;
  const onQuery = (query: { sql: string }) => {
    if (/from "api_keys"/.test(query.sql) && /"key_hash"/.test(query.sql)) lookups++;
  };
  harness.db.on('query', onQuery);
  return { count: () => lookups, stop: () => harness.db.removeListener('query', onQuery) };
}

describe('API keys cached per process', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, smallCatalog);
  });
  afterAll(async () => harness.close());

  it('when a cached key is used again, then the database is not asked; when the admin disables it, then the next request is 403', async () => {
    const keyVersion = memoryKeyVersion();
    const app = harness.app({ keyVersion });
    const key = await createKey(harness.db, { name: 'cached' });
    const queries = countKeyQueries(harness);
    try {
      for (let i = 0; i < 3; i++) expect((await request(app).get(STATS).set('X-API-Key', key.apiKey)).status).toBe(200);
      expect(queries.count()).toBe(1);
      expect(await admin(harness, ['key:disable', 'cached'], keyVersion)).toEqual({ status: 0, err: [] });
      const denied = await request(app).get(STATS).set('X-API-Key', key.apiKey);
      expect(denied.status).toBe(403);
      expect(queries.count()).toBe(2);
    } finally {
      queries.stop();
    }
  });

  it('when the version cannot be read, then every request looks its key up, so a change shows at once', async () => {
    const unknown: KeyVersion = { current: async () => undefined, changed: async () => undefined };
    const app = harness.app({ keyVersion: unknown });
    const key = await createKey(harness.db, { name: 'unversioned' });
    expect((await request(app).get(STATS).set('X-API-Key', key.apiKey)).status).toBe(200);
    await harness.db('api_keys').where({ id: key.id }).update({ enabled: false });
    expect((await request(app).get(STATS).set('X-API-Key', key.apiKey)).status).toBe(403);
  });

  it('when the admin has no way to tell replicas, then the change is saved and the command warns', async () => {
    await createKey(harness.db, { name: 'untold' });
    const result = await admin(harness, ['key:limit', 'untold', '5'], undefined);
    expect(result.status).toBe(0);
    expect(result.err).toEqual(['warning: REDIS_URL is not set, so running replicas could not be told at once; replicas that cached the key see the change within 60 s']);
    expect((await harness.db('api_keys').where({ name: 'untold' }).first()).rate_limit_per_hour).toBe(5);
  });
});

describeWithRealServer('TEST_REDIS_URL', 'API key cache across replicas (real Redis)', () => {
  let harness: Harness;
  const clients: RedisClient[] = [];
  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, smallCatalog);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit()));
    await harness.close();
  });

  const connectedRedis = async (): Promise<RedisClient> => {
    const redis = openRedis(process.env.TEST_REDIS_URL!, silentLogger);
    clients.push(redis);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    return redis;
  };

  const replica = async (prefix: string): Promise<Express> => {
    const redis = await connectedRedis();
    return harness.app({ limiter: createRequestLimiter({ keyPrefix: prefix, redis, logger: silentLogger }), keyVersion: redisKeyVersion(redis, prefix) });
  };

  /** Asks until a request is answered from the replica's cache (no lookup in the database), at most three times. */
  const untilCached = async (app: Express, apiKey: string): Promise<void> => {
    const queries = countKeyQueries(harness);
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const before = queries.count();
        expect((await request(app).get(STATS).set('X-API-Key', apiKey)).status).toBe(200);
        if (queries.count() === before) return;
      }
      throw new Error('the key was never answered from the cache');
    } finally {
      queries.stop();
    }
  };

  const DISABLED = { success: false, error: { code: 403, message: 'API密钥已禁用' } };

  it('when Redis loses the version after a cached key was disabled, then the next request is refused, not answered from the cache', async () => {
    const prefix = `tools_kc_t_${crypto.randomBytes(6).toString('hex')}`;
    const app = await replica(prefix);
    const adminRedis = await connectedRedis();
    const key = await createKey(harness.db, { name: `lost-${prefix}` });
    await untilCached(app, key.apiKey);

    expect(await admin(harness, ['key:disable', `lost-${prefix}`], redisKeyVersion(adminRedis, prefix))).toEqual({ status: 0, err: [] });
    // What a Redis restarted without its data shows: no version at all.
    await adminRedis.del(`${prefix}:api-keys:version`);
    for (let i = 0; i < 2; i++) {
      const denied = await request(app).get(STATS).set('X-API-Key', key.apiKey);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual(DISABLED);
    }
    // The version is there again, so the replica caches keys again, and a change still reaches it.
    expect(await adminRedis.get(`${prefix}:api-keys:version`)).not.toBeNull();
    expect((await admin(harness, ['key:enable', `lost-${prefix}`], redisKeyVersion(adminRedis, prefix))).status).toBe(0);
    await untilCached(app, key.apiKey);
  });

  it('when Redis loses the version and a change to another key sets it again, then a disabled key cached before is still refused', async () => {
    const prefix = `tools_kc_t_${crypto.randomBytes(6).toString('hex')}`;
    const app = await replica(prefix);
    const adminRedis = await connectedRedis();
    const key = await createKey(harness.db, { name: `kept-${prefix}` });
    await createKey(harness.db, { name: `other-${prefix}` });
    // The version is first made by a change, as when the admin runs a command before any request.
    expect((await admin(harness, ['key:limit', `other-${prefix}`, '5'], redisKeyVersion(adminRedis, prefix))).status).toBe(0);
    await untilCached(app, key.apiKey);

    expect(await admin(harness, ['key:disable', `kept-${prefix}`], redisKeyVersion(adminRedis, prefix))).toEqual({ status: 0, err: [] });
    await adminRedis.del(`${prefix}:api-keys:version`);
    expect((await admin(harness, ['key:limit', `other-${prefix}`, '6'], redisKeyVersion(adminRedis, prefix))).status).toBe(0);
    const denied = await request(app).get(STATS).set('X-API-Key', key.apiKey);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual(DISABLED);
  });

  it('when two replicas have the key cached and the admin disables it, then both answer 403 on the very next request, and 200 again once enabled', async () => {
    const prefix = `tools_kc_t_${crypto.randomBytes(6).toString('hex')}`;
    const [first, second] = [await replica(prefix), await replica(prefix)];
    const key = await createKey(harness.db, { name: `shared-${prefix}` });
    for (const app of [first, second, first, second]) expect((await request(app).get(STATS).set('X-API-Key', key.apiKey)).status).toBe(200);

    const adminRedis = openRedis(process.env.TEST_REDIS_URL!, silentLogger);
    clients.push(adminRedis);
    if (adminRedis.status !== 'ready') await new Promise((resolve) => adminRedis.once('ready', resolve));
    expect(await admin(harness, ['key:disable', `shared-${prefix}`], redisKeyVersion(adminRedis, prefix))).toEqual({ status: 0, err: [] });
    for (const app of [first, second]) {
      const denied = await request(app).get(STATS).set('X-API-Key', key.apiKey);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ success: false, error: { code: 403, message: 'API密钥已禁用' } });
    }

    expect((await admin(harness, ['key:enable', `shared-${prefix}`], redisKeyVersion(adminRedis, prefix))).status).toBe(0);
    for (const app of [first, second]) expect((await request(app).get(STATS).set('X-API-Key', key.apiKey)).status).toBe(200);
  });
});
