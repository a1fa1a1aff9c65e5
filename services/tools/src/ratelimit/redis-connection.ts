import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * ioredis for the limiter: no offline queue, so while Redis is down a command fails at once and the
 * insurance limiter answers instead of requests queueing; reconnects on its own when Redis is back.
 */
export function openRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    // Commands issued in the same tick (a request's key-version read and its count) share one write.
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  let lastErrorLogged = 0;
  redis.on('error', (error: Error) => {
    // ioredis emits an error per reconnect attempt; one log line every 10 s is enough.
    if (Date.now() - lastErrorLogged > 10_000) {
      lastErrorLogged = Date.now();
      logger.warn({ err: error.message }, 'redis error; the rate limiter uses its in-memory insurance limiter until Redis is back');
    }
  });
  redis.on('ready', () => logger.info('redis ready'));
  return redis;
}

export async function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
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
