import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { parseRedisTarget } from './redis-target';

/** One server, a Sentinel-managed master (a `Redis` that follows failovers) or a Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * Each connection's settings: no offline queue, so while Redis is down a command fails at once and the
 * insurance limiter answers instead of requests queueing; a command that gets no answer in 1 s fails.
 */
const CONNECTION: RedisOptions = {
  maxRetriesPerRequest: 1,
  commandTimeout: 1000,
  connectTimeout: 2000,
  // A master demoted by a failover answers writes with READONLY: reconnect (Sentinel names the new one).
  reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
};
const retry = (attempt: number) => Math.min(attempt * 100, 1000);

/**
 * ioredis for the limiter, from REDIS_URL (see redis-target.ts): a server, a Sentinel set, or a Cluster,
 * each reconnecting on its own when Redis is back. Commands issued in the same tick (a request's
 * key-version read and its count) share one write (auto-pipelining, per node on a Cluster).
 */
export function openRedis(url: string, logger: Logger): RedisClient {
  const target = parseRedisTarget(url);
  let redis: RedisClient;
  if (target.kind === 'cluster') {
    redis = new Cluster(target.nodes, {
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      clusterRetryStrategy: retry,
      slotsRefreshTimeout: 2000,
      redisOptions: { ...CONNECTION, username: target.username, password: target.password },
    });
  } else if (target.kind === 'sentinel') {
    redis = new Redis({
      ...CONNECTION,
      sentinels: target.sentinels,
      name: target.masterName,
      db: target.db,
      username: target.username,
      password: target.password,
      sentinelPassword: target.sentinelPassword,
      // Subscribes to the Sentinels' +switch-master: a failover moves the connection at once.
      failoverDetector: true,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      retryStrategy: retry,
      sentinelRetryStrategy: retry,
    });
  } else {
    redis = new Redis(target.url, { ...CONNECTION, enableOfflineQueue: false, enableAutoPipelining: true, retryStrategy: retry });
  }
  let lastErrorLogged = 0;
  redis.on('error', (error: Error) => {
    // ioredis emits an error per reconnect attempt; one log line every 10 s is enough.
    if (Date.now() - lastErrorLogged > 10_000) {
      lastErrorLogged = Date.now();
      logger.warn({ err: error.message }, 'redis error; the rate limiter uses its in-memory insurance limiter until Redis is back');
    }
  });
  redis.on('ready', () => logger.info({ redis: target.kind }, 'redis ready'));
  return redis;
}

export async function waitForRedis(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
