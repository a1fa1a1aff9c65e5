import type express from 'express';
import type { Knex } from 'knex';
import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { ToolsConfig } from './config';
import { createApp } from './app';
import { migrateToLatest, openDb } from './db/open-db';
import { createCatalogRepository } from './catalog/catalog-repository';
import { reindexStaleSearchDocuments } from './catalog/search-index';
import { openRedis, waitForRedis } from './ratelimit/redis-connection';
import { createRequestLimiter } from './ratelimit/request-limiter';

export function createLogger(config: Pick<ToolsConfig, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'tools' } });
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
    // Search documents are computed in Node (pinyin): fill in those missing or from an older version of the code.
    const reindexed = await reindexStaleSearchDocuments(createCatalogRepository(db));
    if (reindexed > 0) logger.info({ tools: reindexed }, 'search documents computed');
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
