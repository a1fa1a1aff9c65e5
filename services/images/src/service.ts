import type express from 'express';
import type { Knex } from 'knex';
import pino from 'pino';
import { createApp, createImagesServiceFromDeps } from './app';
import type { ImagesConfig } from './config';
import { migrateToLatest, openDb } from './db/open-db';
import { createMediaProcessor } from './media/media-processor';
import { createMetrics } from './metrics/metrics';
import { createFileStorage } from './storage/file-storage';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export function createLogger(config: ImagesConfig): pino.Logger {
  return pino({ level: config.logLevel, base: { service: 'images' } });
}

/** Opens the db, migrates, prepares storage and builds the app; does not listen. */
export async function openImagesService(
  config: ImagesConfig,
  options: {
    logger?: pino.Logger;
    /** How often expired bin items are purged (default hourly); tests shorten it. */
    purgeIntervalMs?: number;
    clock?: () => Date;
  } = {},
): Promise<{ app: express.Express; db: Knex; close(): Promise<void> }> {
  const logger = options.logger ?? createLogger(config);
  const db = openDb(config.database);
  try {
    await migrateToLatest(db);
    const storage = createFileStorage({ storageDir: config.storageDir, timeZone: config.timeZone });
    await storage.ensureDirectories();
    const deps = { config, db, storage, media: createMediaProcessor(), metrics: createMetrics(), logger, clock: options.clock };
    const service = createImagesServiceFromDeps(deps);
    const app = createApp(deps, service);

    let purging: Promise<unknown> | undefined;
    const purgeExpired = () => {
      if (purging) return;
      purging = service
        .purgeExpired()
        .then((count) => count > 0 && logger.info({ count }, 'purged expired recycle bin items'))
        .catch((error) => logger.error({ err: error }, 'automatic recycle bin purge failed'))
        .finally(() => {
          purging = undefined;
        });
    };
    const intervalMs = options.purgeIntervalMs ?? PURGE_INTERVAL_MS;
    const timer = setInterval(purgeExpired, intervalMs);
    timer.unref();
    const firstRun = setTimeout(purgeExpired, Math.min(5_000, intervalMs));
    firstRun.unref();

    return {
      app,
      db,
      async close() {
        clearInterval(timer);
        clearTimeout(firstRun);
        await purging;
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
}
