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
/** Connections one process opens at most when DATABASE_POOL_MAX is unset. */
export const DEFAULT_POOL_MAX = 10;

const PGLITE_QUEUE_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Opens knex on a real Postgres server, or on an embedded PGlite (with pg_trgm) that has finished
 * starting: PGlite's start (a few seconds for a new database) never counts against a query's wait.
 * `migrationSource` is the service's own list of migrations; `loadDataDir` starts PGlite from a dump
 * (a migrated template, in tests).
 */
export async function openDb(
  target: DatabaseTarget,
  options: { migrationSource: Knex.MigrationSource<unknown>; loadDataDir?: Blob; /** Connections per process on a server (DATABASE_POOL_MAX); default 10. */ poolMax?: number },
): Promise<Knex> {
  const { migrationSource } = options;
  if (target.kind === 'postgres') {
    return knex({ client: 'pg', connection: target.url, pool: { min: 0, max: options.poolMax ?? DEFAULT_POOL_MAX }, migrations: { migrationSource, tableName: 'knex_migrations' } });
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

