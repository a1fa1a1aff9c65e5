import type express from 'express';
import type { Knex } from 'knex';
import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { ToolsConfig } from './config';
import { createApp } from './app';
import { migrateToLatest, openDb } from './db/openDb';
import { createRequestLimiter } from './ratelimit/requestLimiter';

export function createLogger(config: Pick<ToolsConfig, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'tools' } });
}

/**
 * ioredis for the limiter: no offline queue, so while Redis is down a command fails at once and the
 * insurance limiter answers instead of requests queueing; reconnects on its own when Redis is back.
 */
export function openRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
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

export async function openToolsService(
  config: ToolsConfig,
  options: { logger?: Logger } = {},
): Promise<{ app: express.Express; db: Knex; close(): Promise<void> }> {
  const logger = options.logger ?? createLogger(config);
  const db = openDb(config.databaseUrl);
  let redis: Redis | undefined;
  try {
    await migrateToLatest(db);
    if (config.redisUrl) {
      redis = openRedis(config.redisUrl, logger);
      // Start even when Redis is down (fail open); the limiter switches to Redis as soon as it connects.
      if (!(await waitForRedis(redis, 3000))) logger.warn('redis not reachable at start; serving with the insurance limiter');
    }
  } catch (error) {
    redis?.disconnect();
    await db.destroy();
    throw error;
  }
  const limiter = createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, redis, logger });
  const app = createApp({ db, limiter, logger, config });
  let closed = false;
  return {
    app,
    db,
    async close() {
      if (closed) return;
      closed = true;
      if (redis) {
        try {
          await redis.quit();
        } catch {
          redis.disconnect();
        }
      }
      await db.destroy();
    },
  };
}
