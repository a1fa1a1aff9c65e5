/**
 * The limiter on Redis as operators run it for availability: a 3-master Cluster and a Sentinel set (a
 * master, a replica, three Sentinels), each started here from Debian's redis-server, and Redis with the
 * compose file's persistence, restarted.
 */
import fs from 'node:fs';
import os from 'node:os';
import { spawn } from 'node:child_process';
import request from 'supertest';
import { parse } from 'yaml';
import { describeWithRealServer } from '@platform/kit/testing';
import { createKey, importJson, openHarness, silentLogger, smallCatalog, type Harness } from './support/harness';
import { freePort, whenReady } from './support/redis-server';
import { startLocalCluster, startLocalSentinelSet } from './support/redis-topologies';
import { openRedis, waitForRedis, type RedisClient } from '../src/ratelimit/redis-connection';
import { createRequestLimiter } from '../src/ratelimit/request-limiter';

describeWithRealServer('TEST_REDIS_URL', 'rate limit on a Redis Cluster, a Sentinel set and a persistent Redis', () => {
  let harness: Harness;
  const clients: RedisClient[] = [];
  const connect = async (url: string) => {
    const client = openRedis(url, silentLogger);
    clients.push(client);
    expect(await waitForRedis(client, 20_000)).toBe(true);
    return client;
  };
  const apps = (redis: RedisClient, count: number) => Array.from({ length: count }, () => harness.app({ limiter: createRequestLimiter({ keyPrefix: 'tools_rl', redis, logger: silentLogger }) }));
  const statusesOf = async (requests: Array<() => request.Test>) => {
    const statuses: number[] = [];
    for (const send of requests) statuses.push((await send()).status);
    return statuses;
  };

  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, smallCatalog);
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('when two replicas count on a 3-master Cluster, then every key’s limit holds exactly in total, and the keys spread over the masters', async () => {
    const cluster = await startLocalCluster();
    try {
      // Each replica its own Cluster client, as two processes would have.
      const first = apps(await connect(cluster.url), 1)[0]!;
      const second = apps(await connect(cluster.url), 1)[0]!;
      const keys = await Promise.all(Array.from({ length: 12 }, (_, i) => createKey(harness.db, { name: `cluster-${i}`, rateLimitPerHour: 3 })));
      for (const key of keys) {
        const get = (app: typeof first) => () => request(app).get('/api/index.php?action=categories').set('X-API-Key', key.apiKey);
        expect(await statusesOf([get(first), get(second), get(first), get(second)])).toEqual([200, 200, 200, 429]);
      }
      expect((await request(first).get('/readyz')).body).toEqual({ status: 'ok', database: 'ok', redis: 'ok', limiter: 'shared' });
      // Hash-tagged per subject: one slot per key, different keys on different masters.
      const sizes = await Promise.all(
        cluster.ports.map(async (port) => {
          const node = await connect(`redis://127.0.0.1:${port}`);
          return node.dbsize();
        }),
      );
      expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThanOrEqual(keys.length);
      expect(sizes.filter((size) => size > 0).length).toBeGreaterThanOrEqual(2);
    } finally {
      await cluster.close();
    }
  });

  it('when the Sentinels fail the master over, then counting goes on at the new master where it stopped, and no request is counted in memory', async () => {
    const sentinels = await startLocalSentinelSet();
    try {
      const redis = await connect(sentinels.url);
      const [app] = apps(redis, 1);
      const key = await createKey(harness.db, { name: 'sentinel', rateLimitPerHour: 5 });
      const get = () => request(app!).get('/api/index.php?action=categories').set('X-API-Key', key.apiKey);
      expect(await statusesOf([get, get, get])).toEqual([200, 200, 200]);
      // The count has reached the replica before the failover (replication is asynchronous).
      await sentinels.replicated();

      const reconnected = new Promise<void>((resolve) => redis.once('close', () => redis.once('ready', () => resolve())));
      await sentinels.failover();
      await reconnected;
      expect(await sentinels.currentMasterPort()).toBe(sentinels.replicaPort);

      const after = [await get(), await get(), await get()];
      expect(after.map((res) => res.status)).toEqual([200, 200, 429]);
      expect(after.map((res) => res.headers['x-ratelimit-remaining'])).toEqual(['1', '0', '0']);
      expect((await request(app!).get('/readyz')).body.limiter).toBe('shared');
    } finally {
      await sentinels.close();
    }
  });

  it('when the compose file’s Redis restarts, then the counts of the hour are still there (append-only file)', async () => {
    const compose = parse(fs.readFileSync(`${__dirname}/../../../docker-compose.yml`, 'utf8')) as { services: { redis: { command: string[] } } };
    const [binary, ...composeArgs] = compose.services.redis.command;
    expect(binary).toBe('redis-server');
    const dir = fs.mkdtempSync(`${os.tmpdir()}/tools-redis-aof-`);
    const port = await freePort();
    const startRedis = async () => {
      const child = spawn('redis-server', [...composeArgs, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no', '--logfile', ''], { stdio: ['ignore', 'pipe', 'ignore'] });
      await whenReady(child);
      return child;
    };
    let server = await startRedis();
    try {
      const redis = await connect(`redis://127.0.0.1:${port}`);
      const [app] = apps(redis, 1);
      const key = await createKey(harness.db, { name: 'aof', rateLimitPerHour: 4 });
      const get = () => request(app!).get('/api/index.php?action=categories').set('X-API-Key', key.apiKey);
      expect(await statusesOf([get, get, get])).toEqual([200, 200, 200]);

      const closed = new Promise<void>((resolve) => redis.once('close', () => resolve()));
      await new Promise<void>((resolve) => {
        server.once('exit', () => resolve());
        server.kill('SIGTERM');
      });
      await closed;
      const back = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
      server = await startRedis();
      await back;
      expect(await statusesOf([get, get])).toEqual([200, 429]);
    } finally {
      await new Promise<void>((resolve) => {
        if (server.exitCode !== null) return resolve();
        server.once('exit', () => resolve());
        server.kill('SIGTERM');
      });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
