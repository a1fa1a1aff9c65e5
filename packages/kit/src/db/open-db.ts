import fs from 'node:fs';
import knex, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { PGlite, type Extension } from '@electric-sql/pglite';
import type { DatabaseTarget } from './database-target';

// The package exposes contrib modules only through an "exports" map, which the
// repo's node10 module resolution cannot type; the runtime require works everywhere.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

/**
 * knex-pglite (0.14) names a delete's command "DEL", which knex's postgres dialect does not know,
 * so `.delete()` resolved to PGlite's raw result object instead of the count of deleted rows.
 */
class PGliteClient extends (ClientPgLite as unknown as new (config: Knex.Config) => { processResponse(obj: { method?: string }, runner: unknown): unknown }) {
  override processResponse(obj: { method?: string }, runner: unknown): unknown {
    return super.processResponse(obj.method === 'del' ? { ...obj, method: 'delete' } : obj, runner);
  }
}

/**
 * PGlite has one connection, which knex-pglite serves as a pool of one: a query waiting for it is
 * queued behind the others, not refused for a full pool. On a busy machine that queue can be long,
 * so the wait is bounded generously.
 */
const PGLITE_QUEUE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Opens knex on a real Postgres server, or on an embedded PGlite (with pg_trgm) that has finished
 * starting: PGlite's start (a few seconds for a new database) never counts against a query's wait.
 * `migrationSource` is the service's own list of migrations; `loadDataDir` starts PGlite from a dump
 * (a migrated template, in tests).
 */
export async function openDb(target: DatabaseTarget, options: { migrationSource: Knex.MigrationSource<unknown>; loadDataDir?: Blob }): Promise<Knex> {
  const { migrationSource } = options;
  if (target.kind === 'postgres') {
    return knex({ client: 'pg', connection: target.url, pool: { min: 0, max: 10 }, migrations: { migrationSource, tableName: 'knex_migrations' } });
  }
  if (target.kind === 'pglite-dir') fs.mkdirSync(target.dir, { recursive: true });
  const pglite = await PGlite.create({
    dataDir: target.kind === 'pglite-dir' ? target.dir : undefined,
    extensions: { pg_trgm },
    loadDataDir: options.loadDataDir,
  });
  return knex({
    client: PGliteClient as unknown as typeof ClientPgLite,
    dialect: 'postgres',
    connection: { pglite } as unknown as Knex.StaticConnectionConfig,
    acquireConnectionTimeout: PGLITE_QUEUE_TIMEOUT_MS,
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
}

/** Any constant: advisory locks are per database, and each service has its own. */
const MIGRATION_ADVISORY_LOCK = 7_301_946;
/** How often a replica waiting for another's migrations asks for the lock again. */
const MIGRATION_LOCK_RETRY_MS = 200;

/**
 * knex's migration lock is a row in a table that knex first creates without a
 * lock, so replicas starting together on an empty database race on that CREATE
 * TABLE. A session-level advisory lock, held on one connection set aside for it
 * around the whole run, serialises them. It is not a transaction's lock on purpose:
 * an open transaction keeps a snapshot, and `CREATE INDEX CONCURRENTLY` (a
 * migration that declares no transaction) waits for every older snapshot, so it
 * would wait for the runner itself. For the same reason a replica waiting for the
 * lock asks for it again every MIGRATION_LOCK_RETRY_MS (`pg_try_advisory_lock`,
 * instant) rather than blocking in `pg_advisory_lock`, a statement whose snapshot
 * the index build would wait for while the holder waits for the build. PGlite is a
 * single process with a single connection, so it needs none.
 */
export async function migrateToLatest(db: Knex): Promise<void> {
  // The migration source is the one openDb configured.
  if (db.client.config.client !== 'pg') {
    await db.migrate.latest();
    return;
  }
  const connection = await db.client.acquireConnection();
  try {
    for (;;) {
      const tried = await db.raw<{ rows: { locked: boolean }[] }>('SELECT pg_try_advisory_lock(?) AS locked', [MIGRATION_ADVISORY_LOCK]).connection(connection);
      if (tried.rows[0]?.locked) break;
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
    }
    try {
      await db.migrate.latest();
    } finally {
      await db.raw('SELECT pg_advisory_unlock(?)', [MIGRATION_ADVISORY_LOCK]).connection(connection);
    }
  } finally {
    await db.client.releaseConnection(connection);
  }
}
