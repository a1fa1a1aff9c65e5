import path from 'node:path';
import fs from 'node:fs';
import knex, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { migrationSource } from './migrationSource';

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

export async function migrateToLatest(db: Knex): Promise<void> {
  await db.migrate.latest({ migrationSource });
}
