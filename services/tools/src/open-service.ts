import type express from 'express';
import type { Knex } from 'knex';
import type { RedisClient } from './ratelimit/redis-connection';
import type { Logger } from 'pino';
import { claimEmbeddedDatabase, createLogger, openDb, prepareDatabase, serveAdminCommands } from '@platform/kit';
import { runAdminCommand } from './admin/commands';
import { createApp, createReadiness, createServices, type Readiness } from './app';
import { memoryKeyVersion, redisKeyVersion } from './auth/key-version';
import type { ToolsConfig } from './config';
import { createMetrics, type Metrics } from './metrics/metrics';
import { openRedis, waitForRedis } from './ratelimit/redis-connection';
import { createRequestLimiter } from './ratelimit/request-limiter';
import { migrationSource } from './db/migration-source';
import { fetcherSettings } from './outbound/fetcher';
import { startBackgroundJobs } from './jobs/background-jobs';

/** Opens the db, migrates, connects Redis (when configured) and builds the app; does not listen. */
export async function openToolsService(
  config: ToolsConfig,
  options: {
    logger?: Logger;
    /** An open database to use instead of opening config.database (tests start one from a migrated template); closed with the service. */
    db?: Knex;
  } = {},
): Promise<{ app: express.Express; db: Knex; metrics: Metrics; readiness(): Promise<Readiness>; refreshSearch(): Promise<void>; close(): Promise<void> }> {
  const logger = options.logger ?? createLogger('tools', config.logLevel);
  const target = config.database;
  // PGlite allows one process per directory: claim it, or say who has it.
  const claim = options.db || target.kind !== 'pglite-dir' ? undefined : claimEmbeddedDatabase(target.dir);
  if (claim && !claim.claimed) {
    throw new Error(`the embedded database ${target.kind === 'pglite-dir' ? target.dir : ''} is in use by process ${claim.owner.pid}; stop it first (admin commands reach it through that process)`);
  }
  let db: Knex | undefined;
  let redis: RedisClient | undefined;
  let adminServer: { close(): Promise<void> } | undefined;
  try {
    db = options.db ?? (await openDb(target, { migrationSource, poolMax: config.databasePoolMax }));
    await prepareDatabase(db, { service: 'tools', migrations: config.migrations, poolMax: config.databasePoolMax, logger });
    if (config.redisUrl) {
      redis = openRedis(config.redisUrl, logger);
      // Start even when Redis is down (fail open); the limiter switches to Redis as soon as it connects.
      if (!(await waitForRedis(redis, 3000))) logger.warn('redis not reachable at start; serving with the insurance limiter');
    }
    const limiter = createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, redis, logger });
    const metrics = createMetrics();
    // Keys are cached when a change to one can reach every cache at once: through Redis, or, for an
    // embedded database only this process writes, through this process's own admin commands.
    const keyVersion = redis ? redisKeyVersion(redis, config.rateLimitKeyPrefix) : claim?.claimed ? memoryKeyVersion() : undefined;
    const deps = { db, limiter, logger, config, metrics, keyVersion };
    const services = createServices(deps);
    const app = createApp(deps, services);
    services.keyHours.start();
    // The search index is built before the service listens (and so before /readyz answers ready): the
    // first search would otherwise wait for it, seconds at 10,000 tools. A failure here only delays it to
    // that first search, which tries again.
    const warming = Date.now();
    await services.search
      .refresh()
      .then(() => logger.info({ ms: Date.now() - warming }, 'search index built'))
      .catch((error: unknown) => logger.warn({ err: error }, 'search index not built at start; the first search builds it'));
    if (claim?.claimed) {
      const open = db;
      adminServer = await serveAdminCommands(claim.adminSocket, (argv, print, input) =>
        runAdminCommand(argv, { db: open, limiter, keyVersion, defaultRateLimitPerHour: config.defaultRateLimitPerHour, outbound: fetcherSettings(config), iconRefreshDays: config.iconRefreshDays, linkCheckIntervalHours: config.linkCheckIntervalHours, input, ...print }),
      );
    }
    // Icons and link checks: each replica runs the loop, a lease row lets one at a time do the work.
    const jobs = startBackgroundJobs({
      db,
      logger,
      fetcher: fetcherSettings(config),
      iconFetch: config.iconFetch,
      iconRefreshDays: config.iconRefreshDays,
      linkCheck: config.linkCheck,
      linkCheckIntervalHours: config.linkCheckIntervalHours,
    });
    const opened = db;
    let closed = false;
    return {
      app,
      db: opened,
      metrics,
      /** Brings this replica's search index up to the catalog (after seeding it in process, say). */
      refreshSearch: () => services.search.refresh(),
      readiness: createReadiness(opened, limiter),
      async close() {
        if (closed) return;
        closed = true;
        await jobs.stop();
        await services.keyHours.stop();
        await adminServer?.close();
        if (redis) {
          try {
            await redis.quit();
          } catch {
            redis.disconnect();
          }
        }
        await opened.destroy();
        if (claim?.claimed) claim.release();
      },
    };
  } catch (error) {
    await adminServer?.close();
    redis?.disconnect();
    await db?.destroy().catch(() => undefined);
    if (claim?.claimed) claim.release();
    throw error;
  }
}
