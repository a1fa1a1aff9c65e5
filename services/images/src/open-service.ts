import type express from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { claimEmbeddedDatabase, connectsDirectly, createJobLease, createLogger, openDb, prepareDatabase, serveAdminCommands } from '@platform/kit';
import { createApp, createReadiness, createServices, type Readiness, type Services } from './app';
import { runAdminCommand } from './admin/commands';
import type { ImagesConfig } from './config';
import { createMediaProcessor } from './media/media-processor';
import { createMetrics, type Metrics } from './metrics/metrics';
import { createImagesRepository } from './images/images-repository';
import { createStorage, type Storage } from './storage/storage';
import { migrationSource } from './db/migration-source';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { watchPreparedStatements } from './db/statement-watch';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;
/**
 * How often the expiry job looks for images whose expiry has passed. nginx serves /i/ from the disk or
 * bucket directly, so an expired image answers until the job has moved it: at most this long (plus
 * the move itself) after its expiry.
 */
export const EXPIRY_INTERVAL_MS = 60 * 1000;
/** The expiry job's lease outlives one run by far; a replica that died lets it expire. */
const EXPIRY_LEASE_MS = 5 * 60 * 1000;
/** Far beyond any live upload (Node's server.requestTimeout caps receiving a request at 5 minutes). */
const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

/**
 * Images whose rows name a backend this configuration lacks (S3_BUCKET unset while images are in the
 * bucket) could be neither served nor deleted: refuse to start, saying why.
 */
async function refuseUnreachableImages(db: Knex, storage: Storage): Promise<void> {
  // The local disk is always configured; only the bucket can be missing.
  if (storage.isConfigured('s3')) return;
  const count = await createImagesRepository(db).countOn('s3');
  if (count > 0) {
    throw new Error(`${count} image(s) are stored on s3, which is not configured: set S3_BUCKET and the other S3_ variables (or run storage:migrate with them set)`);
  }
}

/**
 * Named prepared statements (each pooled connection parses a hot statement once) only where they are
 * safe: `auto` uses them when the service reaches Postgres itself, and unnamed statements (parsed on
 * every run, safe behind any pooler in transaction mode) when a pooler is in between.
 */
async function resolveNamedStatements(db: Knex, config: ImagesConfig, logger: Logger): Promise<boolean> {
  if (db.client.config.client !== 'pg') return false;
  const named = config.preparedStatements === 'auto' ? await connectsDirectly(db) : config.preparedStatements;
  const why = config.preparedStatements === 'auto' ? (named ? 'auto: connected to Postgres directly' : 'auto: a pooler is between this replica and Postgres') : 'DATABASE_PREPARED_STATEMENTS';
  logger.info({ namedStatements: named }, `prepared statements: ${named ? 'named' : 'unnamed'} (${why})`);
  return named;
}

/** Opens the db, migrates, prepares storage, builds the app and starts housekeeping; does not listen. */
export async function openImagesService(
  config: ImagesConfig,
  options: {
    logger?: Logger;
    /**
     * How often expired bin items are purged and stale temp files swept (default hourly, first run
     * after 5 s). null: no timer, housekeeping runs only when runHousekeeping is called (tests).
     */
    housekeepingIntervalMs?: number | null;
    /** How often the expiry job runs (default every minute). null: only when runExpiry is called; also null when housekeepingIntervalMs is. */
    expiryIntervalMs?: number | null;
    clock?: () => Date;
    /** An open database to use instead of opening config.database (tests start one from a migrated template); closed with the service. */
    db?: Knex;
  } = {},
): Promise<{
  app: express.Express;
  db: Knex;
  storage: Storage;
  metrics: Metrics;
  services: Services;
  readiness(): Promise<Readiness>;
  runHousekeeping(): Promise<void>;
  /** One run of the expiry job (if this replica gets its lease): the number of images it binned. */
  runExpiry(): Promise<number>;
  close(): Promise<void>;
}> {
  const logger = options.logger ?? createLogger('images', config.logLevel);
  const target = config.database;
  // PGlite allows one process per directory: claim it, or say who has it.
  const claim = options.db || target.kind !== 'pglite-dir' ? undefined : claimEmbeddedDatabase(target.dir);
  if (claim && !claim.claimed) {
    throw new Error(`the embedded database ${target.kind === 'pglite-dir' ? target.dir : ''} is in use by process ${claim.owner.pid}; stop it first (admin commands reach it through that process)`);
  }
  let db: Knex | undefined;
  let storage: Storage | undefined;
  let adminServer: { close(): Promise<void> } | undefined;
  try {
    db = options.db ?? (await openDb(target, { migrationSource, poolMax: config.databasePoolMax }));
    await prepareDatabase(db, { service: 'images', migrations: config.migrations, poolMax: config.databasePoolMax, logger });
    const metrics = createMetrics();
    const openedStorage = createStorage(
      { backend: config.storageBackend, storageDir: config.storageDir, timeZone: config.timeZone, s3: config.s3 },
      { countError: metrics.countStorageError },
    );
    storage = openedStorage;
    await openedStorage.prepare();
    await refuseUnreachableImages(db, openedStorage);
    const namedStatements = await resolveNamedStatements(db, config, logger);
    const statements = watchPreparedStatements(db, logger);
    const deps = { config, db, storage: openedStorage, media: createMediaProcessor(), metrics, logger, clock: options.clock, namedStatements, statements };
    const services = createServices(deps);
    const app = createApp(deps, services);
    if (claim?.claimed) {
      const open = db;
      adminServer = await serveAdminCommands(claim.adminSocket, (argv, print, input) => runAdminCommand(argv, { db: open, config, ...print, input }));
    }

    let housekeeping: Promise<void> | undefined;
    /** One run at a time; a call during a run waits for that run. */
    const runHousekeeping = (): Promise<void> => {
      housekeeping ??= Promise.all([
        services.recovery
          .recoverStalled()
          .then((count) => count > 0 && logger.info({ count }, 'finished image steps left by stopped processes'))
          .catch((error) => logger.error({ err: error }, 'recovering unfinished image steps failed')),
        services.auth
          .removeExpired()
          .then((count) => count > 0 && logger.info({ count }, 'removed expired sessions'))
          .catch((error) => logger.error({ err: error }, 'removing expired sessions failed')),
        services.bin
          .purgeExpired()
          .then((count) => count > 0 && logger.info({ count }, 'purged expired recycle bin items'))
          .catch((error) => logger.error({ err: error }, 'automatic recycle bin purge failed')),
        services.recovery
          .removeStorageLeftovers()
          .then((count) => count > 0 && logger.info({ count }, 'removed copies an interrupted storage migration left'))
          .catch((error) => logger.error({ err: error }, 'removing storage migration leftovers failed')),
        openedStorage.temp
          .removeStaleTemp(new Date((options.clock?.() ?? new Date()).getTime() - STALE_TEMP_AGE_MS))
          .then((count) => count > 0 && logger.info({ count }, 'removed temp files left by interrupted uploads'))
          .catch((error) => logger.error({ err: error }, 'sweeping stale temp files failed')),
      ])
        .then(() => undefined)
        .finally(() => {
          housekeeping = undefined;
        });
      return housekeeping;
    };
    // The expiry job: one replica at a time (a lease row), one run at a time in this process.
    const expiryLease = createJobLease(db, { name: 'image-expiry', holder: `${hostname()}:${process.pid}:${randomUUID()}`, ttlMs: EXPIRY_LEASE_MS });
    let expiry: Promise<number> | undefined;
    const runExpiry = (): Promise<number> => {
      expiry ??= (async () => {
        if (!(await expiryLease.acquire())) return 0;
        try {
          const count = await services.bin.binExpired(options.clock?.() ?? new Date());
          if (count > 0) logger.info({ count }, 'moved expired images into their owners’ bins');
          return count;
        } finally {
          await expiryLease.release();
        }
      })()
        .catch((error) => {
          logger.error({ err: error }, 'the expiry job failed');
          return 0;
        })
        .finally(() => {
          expiry = undefined;
        });
      return expiry;
    };

    const intervalMs = options.housekeepingIntervalMs === undefined ? HOUSEKEEPING_INTERVAL_MS : options.housekeepingIntervalMs;
    const expiryMs = intervalMs === null ? null : options.expiryIntervalMs === undefined ? EXPIRY_INTERVAL_MS : options.expiryIntervalMs;
    const timers = [
      ...(intervalMs === null ? [] : [setInterval(() => void runHousekeeping(), intervalMs), setTimeout(() => void runHousekeeping(), Math.min(5_000, intervalMs))]),
      ...(expiryMs === null ? [] : [setInterval(() => void runExpiry(), expiryMs)]),
    ];
    for (const timer of timers) timer.unref();

    return {
      app,
      db,
      storage: openedStorage,
      metrics,
      services,
      readiness: createReadiness(db, openedStorage, logger, statements),
      runHousekeeping,
      runExpiry,
      async close() {
        for (const timer of timers) clearTimeout(timer); // clears an interval too
        await housekeeping;
        await expiry;
        await adminServer?.close();
        await db?.destroy();
        await storage?.close();
        claim?.claimed && claim.release();
      },
    };
  } catch (error) {
    await adminServer?.close();
    await db?.destroy().catch(() => undefined);
    await storage?.close().catch(() => undefined);
    if (claim?.claimed) claim.release();
    throw error;
  }
}
