import path from 'node:path';
import fs from 'node:fs';
import knex, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { migrationSource } from './migration-source';

/**
 * Opens knex on real Postgres (`postgres://…`) or on embedded PGlite (`pglite:memory`, `pglite:<dir>`).
 * PGlite is created here rather than by knex-pglite so that the pg_trgm extension can be loaded into it.
 */
function loadTrigramExtension(): Extension {
  // Required, not imported: the package exposes contrib/* only through its exports map, which this
  // project's `moduleResolution: node` cannot type-resolve.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension }).pg_trgm;
}

export function openDb(databaseUrl: string): Knex {
  if (databaseUrl.startsWith('pglite:')) {
    const target = databaseUrl.slice('pglite:'.length);
    let dataDir: string | undefined;
    if (target !== 'memory') {
      dataDir = path.resolve(process.cwd(), target);
      fs.mkdirSync(dataDir, { recursive: true });
    }
    const pglite = new PGlite({ dataDir, extensions: { pg_trgm: loadTrigramExtension() } });
    return knex({ client: ClientPgLite, dialect: 'postgres', connection: { pglite } } as Knex.Config);
  }
  return knex({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 10 } });
}

/** Any constant: advisory locks are per database, and each service has its own. */
const MIGRATION_ADVISORY_LOCK = 7_301_946;

/**
 * knex's migration lock is a row in a table that knex first creates without a
 * lock, so replicas starting together on an empty database race on that CREATE
 * TABLE. A transaction-scoped advisory lock around the whole run serialises them.
 * PGlite is a single process with a single connection, so it needs none.
 */
export async function migrateToLatest(db: Knex): Promise<void> {
  if (db.client.config.client !== 'pg') {
    await db.migrate.latest({ migrationSource });
    return;
  }
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_ADVISORY_LOCK]);
    await db.migrate.latest({ migrationSource });
  });
}
