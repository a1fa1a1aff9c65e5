import type express from 'express';
import type { Knex } from 'knex';
import pino, { type Logger } from 'pino';
import { createApp, createReadiness, createServices, type Readiness } from './app';
import { serveAdminCommands } from './admin/admin-socket';
import { runAdminCommand } from './admin/commands';
import type { ImagesConfig } from './config';
import { claimEmbeddedDatabase } from './db/embedded-owner';
import { migrateToLatest, openDb } from './db/open-db';
import { createMediaProcessor } from './media/media-processor';
import { createMetrics, type Metrics } from './metrics/metrics';
import { createFileStorage } from './storage/file-storage';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;
/** Far beyond any live upload (Node's server.requestTimeout caps receiving a request at 5 minutes). */
const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

export function createLogger(config: Pick<ImagesConfig, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'images' } });
}

/** Opens the db, migrates, prepares storage, builds the app and starts housekeeping; does not listen. */
export async function openImagesService(
  config: ImagesConfig,
  options: {
    logger?: Logger;
    /** How often expired bin items are purged and stale temp files swept (default hourly); tests shorten it. */
    housekeepingIntervalMs?: number;
    clock?: () => Date;
    /** An open database to use instead of opening config.database (tests start one from a migrated template); closed with the service. */
    db?: Knex;
  } = {},
): Promise<{
  app: express.Express;
  db: Knex;
  metrics: Metrics;
  readiness(): Promise<Readiness>;
  runHousekeeping(): Promise<void>;
  close(): Promise<void>;
}> {
  const logger = options.logger ?? createLogger(config);
  const target = config.database;
  // PGlite allows one process per directory: claim it, or say who has it.
  const claim = options.db || target.kind !== 'pglite-dir' ? undefined : claimEmbeddedDatabase(target.dir);
  if (claim && !claim.claimed) {
    throw new Error(`the embedded database ${target.kind === 'pglite-dir' ? target.dir : ''} is in use by process ${claim.owner.pid}; stop it first (admin commands reach it through that process)`);
  }
  let db: Knex | undefined;
  let adminServer: { close(): Promise<void> } | undefined;
  try {
    db = options.db ?? (await openDb(target));
    await migrateToLatest(db);
    const storage = createFileStorage({ storageDir: config.storageDir, timeZone: config.timeZone });
    await storage.ensureDirectories();
    const metrics = createMetrics();
    const deps = { config, db, storage, media: createMediaProcessor(), metrics, logger, clock: options.clock };
    const services = createServices(deps);
    const app = createApp(deps, services);
    if (claim?.claimed) {
      const open = db;
      adminServer = await serveAdminCommands(claim.adminSocket, (argv, print) => runAdminCommand(argv, { db: open, config, ...print }));
    }

    let housekeeping: Promise<void> | undefined;
    /** One run at a time; a call during a run waits for that run. */
    const runHousekeeping = (): Promise<void> => {
      housekeeping ??= Promise.all([
        services.recovery
          .recoverStalled()
          .then((count) => count > 0 && logger.info({ count }, 'finished image steps left by stopped processes'))
          .catch((error) => logger.error({ err: error }, 'recovering unfinished image steps failed')),
        services.bin
          .purgeExpired()
          .then((count) => count > 0 && logger.info({ count }, 'purged expired recycle bin items'))
          .catch((error) => logger.error({ err: error }, 'automatic recycle bin purge failed')),
        storage
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
    const intervalMs = options.housekeepingIntervalMs ?? HOUSEKEEPING_INTERVAL_MS;
    const timer = setInterval(() => void runHousekeeping(), intervalMs);
    timer.unref();
    const firstRun = setTimeout(() => void runHousekeeping(), Math.min(5_000, intervalMs));
    firstRun.unref();

    return {
      app,
      db,
      metrics,
      readiness: createReadiness(db),
      runHousekeeping,
      async close() {
        clearInterval(timer);
        clearTimeout(firstRun);
        await housekeeping;
        await adminServer?.close();
        await db?.destroy();
        claim?.claimed && claim.release();
      },
    };
  } catch (error) {
    await adminServer?.close();
    await db?.destroy().catch(() => undefined);
    if (claim?.claimed) claim.release();
    throw error;
  }
}
