import crypto from 'node:crypto';
import request from 'supertest';
import pino from 'pino';
import type { RedisClient } from '../src/ratelimit/redis-connection';
import type { Express } from 'express';
import { describeWithRealServer } from '@platform/kit/testing';
import { createKey, importJson, openHarness, silentLogger, smallCatalog, testConfig, type Harness } from './support/harness';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server';
import { openToolsService } from '../src/open-service';
import { openRedis } from '../src/ratelimit/redis-connection';
import { createRequestLimiter, STORE_RETRY_MS } from '../src/ratelimit/request-limiter';

/** Resolves on the client's next `event` (at once if it is already in that state). */
function redisEvent(client: RedisClient, event: 'ready' | 'close'): Promise<void> {
  if (event === 'ready' && client.status === 'ready') return Promise.resolve();
  if (event === 'close' && client.status !== 'ready') return Promise.resolve();
  return new Promise((resolve) => client.once(event, () => resolve()));
}

describeWithRealServer('TEST_REDIS_URL', 'rate limit on real Redis', () => {
  let harness: Harness;
  const clients: RedisClient[] = [];
  // A prefix per run: files and CI runs share the machine's Redis.
  const keyPrefix = () => `tools_rl_t_${crypto.randomBytes(6).toString('hex')}`;
  const redisClient = async (url: string, logger = silentLogger) => {
    const client = openRedis(url, logger);
    clients.push(client);
    await redisEvent(client, 'ready');
    return client;
  };

  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, smallCatalog);
  });
  afterAll(async () => {
    await Promise.all(clients.filter((client) => client.status === 'ready').map((client) => client.quit()));
    await harness.close();
  });

  it('when a key with limit 5 sends 6 requests, then exactly 5 pass and the 6th is 429; the window is one hour in Redis', async () => {
    const prefix = keyPrefix();
    const redis = await redisClient(process.env.TEST_REDIS_URL!);
    const app = harness.app({ limiter: createRequestLimiter({ keyPrefix: prefix, redis, logger: silentLogger }) });
    const key = await createKey(harness.db, { rateLimitPerHour: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await request(app).get('/api/index.php?action=tools').set('X-API-Key', key.apiKey);
      statuses.push(res.status);
      if (i === 5) {
        expect(res.body).toEqual({ success: false, error: { code: 429, message: '请求过于频繁' } });
        expect(res.headers['x-ratelimit-remaining']).toBe('0');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(3590);
      } else {
        expect(res.headers['x-ratelimit-remaining']).toBe(String(4 - i));
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await redis.get(`${prefix}:{key:${key.id}}`)).toBe('6');
    const ttl = await redis.pttl(`${prefix}:{key:${key.id}}`);
    expect(ttl).toBeGreaterThan(3_590_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it('when 30 requests race with limit 10, then exactly 10 pass', async () => {
    const redis = await redisClient(process.env.TEST_REDIS_URL!);
    const app = harness.app({ limiter: createRequestLimiter({ keyPrefix: keyPrefix(), redis, logger: silentLogger }) });
    const key = await createKey(harness.db, { rateLimitPerHour: 10 });
    const results = await Promise.all(
      Array.from({ length: 30 }, () => request(app).get('/api/index.php?action=categories').set('X-API-Key', key.apiKey)),
    );
    expect(results.filter((res) => res.status === 200)).toHaveLength(10);
    expect(results.filter((res) => res.status === 429)).toHaveLength(20);
  });

  it('when two app instances share one Redis, then the key’s limit holds exactly in total', async () => {
    const prefix = keyPrefix();
    const appA = harness.app({ limiter: createRequestLimiter({ keyPrefix: prefix, redis: await redisClient(process.env.TEST_REDIS_URL!), logger: silentLogger }) });
    const appB = harness.app({ limiter: createRequestLimiter({ keyPrefix: prefix, redis: await redisClient(process.env.TEST_REDIS_URL!), logger: silentLogger }) });
    const key = await createKey(harness.db, { rateLimitPerHour: 7 });
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const res = await request(i % 2 === 0 ? appA : appB).get('/api/index.php?action=stats').set('X-API-Key', key.apiKey);
      statuses.push(res.status);
      remaining.push(res.headers['x-ratelimit-remaining']!);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 429, 429, 429]);
    expect(remaining).toEqual(['6', '5', '4', '3', '2', '1', '0', '0', '0', '0']);
  });

  /** An app whose limiter counts on a private redis-server the test may stop, restart or pause; its log lines collected. */
  async function withPrivateRedis(
    rateLimitPerHour: number,
    run: (ctx: {
      redisServer: PrivateRedis;
      redis: RedisClient;
      app: Express;
      keyId: number;
      logLines: string[];
      get: () => request.Test;
      /** Moves the limiter's clock (not the window's: that one lives in Redis or the insurance limiter). */
      advanceClock: (ms: number) => void;
    }) => Promise<void>,
  ): Promise<void> {
    const redisServer = await startPrivateRedis();
    const logLines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(line) });
    let clockMs = Date.now();
    let redis: RedisClient | undefined;
    try {
      redis = await redisClient(redisServer.url, logger);
      const app = harness.app({ limiter: createRequestLimiter({ keyPrefix: 'tools_rl', redis, logger, now: () => clockMs }) });
      const key = await createKey(harness.db, { rateLimitPerHour });
      const get = () => request(app).get('/api/index.php?action=categories').set('X-API-Key', key.apiKey);
      await run({ redisServer, redis, app, keyId: key.id, logLines, get, advanceClock: (ms) => (clockMs += ms) });
    } finally {
      redisServer.resume();
      if (redis?.status === 'ready') await redis.quit();
      await redisServer.stop();
    }
  }

  it('when Redis stops, then the service keeps answering on the insurance limiter (logged, readiness degraded); when it is back, exact shared limits return', async () => {
    await withPrivateRedis(3, async ({ redisServer, redis, app, keyId, logLines, get }) => {
      expect((await get()).headers['x-ratelimit-remaining']).toBe('2');
      expect((await request(app).get('/readyz')).body).toEqual({ status: 'ok', database: 'ok', redis: 'ok', limiter: 'shared' });

      const closed = redisEvent(redis, 'close');
      await redisServer.stop();
      await closed;
      // Insurance limiter: per process, fresh count, still the key's limit.
      const during = [await get(), await get(), await get(), await get()];
      expect(during.map((res) => res.status)).toEqual([200, 200, 200, 429]);
      expect(during[0]!.headers['x-ratelimit-remaining']).toBe('2');
      const ready = await request(app).get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'degraded', database: 'ok', redis: 'down', limiter: 'memory' });
      expect(logLines.some((line) => line.includes('insurance limiter in use'))).toBe(true);
      expect((await request(app).get('/metrics')).text).toMatch(/^tools_rate_limit_in_memory 1$/m);

      const reconnected = redisEvent(redis, 'ready');
      await redisServer.start();
      await reconnected;
      // The restarted Redis is empty (no persistence): counting starts again there, exactly.
      const after = [await get(), await get(), await get(), await get()];
      expect(after.map((res) => res.status)).toEqual([200, 200, 200, 429]);
      expect(after.map((res) => res.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
      expect(await redis.get(`tools_rl:{key:${keyId}}`)).toBe('4');
      expect((await request(app).get('/readyz')).body.status).toBe('ok');
      expect(logLines.some((line) => line.includes('shared limits restored'))).toBe(true);
      expect((await request(app).get('/metrics')).text).toMatch(/^tools_rate_limit_in_memory 0$/m);
    });
  });

  it('when Redis hangs (connected, not answering), then requests are served on the insurance limiter without each waiting for Redis, readiness says degraded; when it answers again, shared limits return', async () => {
    await withPrivateRedis(100, async ({ redisServer, redis, app, keyId, logLines, get, advanceClock }) => {
      expect((await get()).headers['x-ratelimit-remaining']).toBe('99');

      redisServer.pause();
      // The first request waits for the command timeout (1 s), then falls back.
      expect((await get()).status).toBe(200);
      expect(redis.status).toBe('ready');
      expect((await request(app).get('/readyz')).body).toEqual({ status: 'degraded', database: 'ok', redis: 'down', limiter: 'memory' });
      expect(logLines.some((line) => line.includes('insurance limiter in use') && line.includes('timed out'))).toBe(true);
      // The next ones skip Redis for STORE_RETRY_MS (the limiter's clock does not move here): none
      // of them reaches Redis, so none waits for the command timeout.
      for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);

      redisServer.resume();
      // Redis runs what reached it while paused: only the one command that timed out.
      expect(await redis.get(`tools_rl:{key:${keyId}}`)).toBe('2');
      advanceClock(STORE_RETRY_MS);
      const back = await get();
      expect(back.status).toBe(200);
      // Counted on Redis again: the answer is Redis's count, not this process's insurance count.
      const sharedCount = Number(await redis.get(`tools_rl:{key:${keyId}}`));
      expect(back.headers['x-ratelimit-remaining']).toBe(String(100 - sharedCount));
      expect((await request(app).get('/readyz')).body.status).toBe('ok');
      expect(logLines.some((line) => line.includes('shared limits restored'))).toBe(true);
    });
  });

  it('when openToolsService gets REDIS_URL, then it connects the Redis limiter and close() releases everything', async () => {
    const prefix = keyPrefix();
    const service = await openToolsService(
      testConfig({ REDIS_URL: process.env.TEST_REDIS_URL!, RATE_LIMIT_KEY_PREFIX: prefix, DATABASE_URL: harness.databaseUrl.startsWith('pglite:') ? 'pglite:memory' : harness.databaseUrl }),
      { logger: silentLogger },
    );
    try {
      const key = await createKey(service.db, { name: `svc-${prefix}`, rateLimitPerHour: 2 });
      const res = await request(service.app).get('/api/index.php?action=categories').set('X-API-Key', key.apiKey);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe('1');
      expect((await request(service.app).get('/readyz')).body).toEqual({ status: 'ok', database: 'ok', redis: 'ok', limiter: 'shared' });
      const redis = await redisClient(process.env.TEST_REDIS_URL!);
      expect(await redis.get(`${prefix}:{key:${key.id}}`)).toBe('1');
    } finally {
      await service.close();
    }
  });
});
