import fs from 'node:fs';
import knex, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { PGlite, type Extension } from '@electric-sql/pglite';
import type { DatabaseTarget } from '../config';
import { migrationSource } from './migration-source';

// The package exposes contrib modules only through an "exports" map, which the
// repo's node10 module resolution cannot type; the runtime require works everywhere.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

/** Opens knex on a real Postgres server or on an embedded PGlite (with pg_trgm loaded). */
export function openDb(target: DatabaseTarget): Knex {
  if (target.kind === 'postgres') {
    return knex({
      client: 'pg',
      connection: target.url,
      pool: { min: 0, max: 10 },
      // ids are bigserial; they stay far below 2^53, so return them as numbers.
      migrations: { migrationSource, tableName: 'knex_migrations' },
    });
  }
  if (target.kind === 'pglite-dir') fs.mkdirSync(target.dir, { recursive: true });
  const pglite = new PGlite({ dataDir: target.kind === 'pglite-dir' ? target.dir : undefined, extensions: { pg_trgm } });
  return knex({
    client: ClientPgLite,
    dialect: 'postgres',
    connection: { pglite } as unknown as Knex.StaticConnectionConfig,
    migrations: { migrationSource, tableName: 'knex_migrations' },
  });
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
