import type { Knex } from 'knex';

/** How long migrateToLatest keeps retrying while another process migrates or a lock is busy. */
const MIGRATE_PATIENCE_MS = 10 * 60 * 1000;

/**
 * Errors after which the same run is simply tried again: another process creating knex's own tables at
 * the same moment (duplicate table, or the unique index on pg_type), knex's migration lock held by
 * another process, and a migration step that gave up waiting for a lock (lock_timeout, 55P03).
 */
function worthRetrying(error: unknown): boolean {
  const { code, name, message } = error as { code?: string; name?: string; message?: string };
  return code === '42P07' || code === '23505' || code === '55P03' || name === 'MigrationLocked' || /already locked/.test(message ?? '');
}

/**
 * Applies every pending migration. knex's own lock (a row, taken in a short transaction) keeps two
 * processes apart, and each query takes one connection at a time, so a pool of one is enough and
 * nothing waits on a second connection of the same pool; a run that collides with another process, or
 * whose step gave up on a lock (lock_timeout), is tried again with a growing pause.
 */
export async function migrateToLatest(db: Knex, options: { patienceMs?: number; onRetry?: (error: Error) => void } = {}): Promise<void> {
  await createKnexTables(db);
  const deadline = Date.now() + (options.patienceMs ?? MIGRATE_PATIENCE_MS);
  for (let attempt = 0; ; attempt += 1) {
    try {
      await db.migrate.latest();
      return;
    } catch (error) {
      if (!worthRetrying(error) || Date.now() > deadline) {
        if (/already locked/.test((error as Error).message ?? '')) {
          throw new Error(
            `the migration lock is still held after ${Math.round((options.patienceMs ?? MIGRATE_PATIENCE_MS) / 1000)} s: if no migration is running (a process was killed mid-run), release it with UPDATE knex_migrations_lock SET is_locked = 0`,
          );
        }
        throw error;
      }
      options.onRetry?.(error as Error);
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * 2 ** attempt) * (0.5 + Math.random())));
    }
  }
}

/** Any constant: advisory locks are per database, and each service has its own. */
const KNEX_TABLES_LOCK = 7_301_946;

/**
 * knex creates its two tables, and the lock table's one row, without a lock: processes starting
 * together on an empty database could each insert a lock row, and then each find one unlocked and
 * migrate at the same time. Created here first, in one short transaction under a transaction-scoped
 * advisory lock (one connection, safe behind a pooler in transaction mode), with knex's own columns.
 */
async function createKnexTables(db: Knex): Promise<void> {
  if (db.client.config.client !== 'pg') return;
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [KNEX_TABLES_LOCK]);
    await trx.raw('CREATE TABLE IF NOT EXISTS knex_migrations (id serial PRIMARY KEY, name varchar(255), batch integer, migration_time timestamptz)');
    await trx.raw('CREATE TABLE IF NOT EXISTS knex_migrations_lock (index serial PRIMARY KEY, is_locked integer)');
    await trx.raw('INSERT INTO knex_migrations_lock (is_locked) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM knex_migrations_lock)');
    // Each migration is recorded once. knex checks what is applied before it takes its lock, and when a
    // pending migration runs outside a transaction (CREATE INDEX CONCURRENTLY) it does not check again
    // once it has the lock: a replica that listed a migration just before another replica applied it
    // would apply it again and record it twice. With the name unique, its record fails (23505, which
    // migrateToLatest tries again: it then finds nothing pending); the migrations are written to be run
    // again (IF NOT EXISTS, concurrent indexes made or remade). Doubles recorded before this are removed.
    await trx.raw('DELETE FROM knex_migrations AS later USING knex_migrations AS first WHERE later.name = first.name AND later.id > first.id');
    await trx.raw('CREATE UNIQUE INDEX IF NOT EXISTS knex_migrations_name_unique ON knex_migrations (name)');
  });
}

/** The names of the service's migrations that the database has not applied, in order. */
export async function pendingMigrations(db: Knex): Promise<string[]> {
  const source = (db.client.config as Knex.Config).migrations?.migrationSource;
  if (!source) throw new Error('openDb configures the migration source');
  const names = (await source.getMigrations([])).map((migration) => source.getMigrationName(migration));
  const { rows } = (await db.raw("SELECT to_regclass('knex_migrations') IS NOT NULL AS present")) as { rows: Array<{ present: boolean }> };
  const applied = new Set<string>(rows[0]?.present ? await db('knex_migrations').pluck('name') : []);
  return names.filter((name) => !applied.has(name));
}

/** A schema older than the build: main prints its message alone, one line, not a stack. */
export class SchemaBehindError extends Error {
  override name = 'SchemaBehindError';
}

/**
 * For a replica started with DATABASE_MIGRATIONS=verify: refuses a schema older than this build (a
 * migration it knows is not applied) in one line naming the command that applies them. A newer schema
 * (migrations this build does not know) is served: expand-only migrations keep old replicas working.
 */
export async function requireMigrated(db: Knex, service: string): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length === 0) return;
  throw new SchemaBehindError(
    `the ${service} database schema is older than this build: ${pending.length} migration(s) not applied (first ${pending[0]}); ` +
      `run \`npm run admin -- ${service} migrate\` (compose: docker compose run --rm ${service}-migrate) before starting replicas`,
  );
}

/** What `admin migrate` prints once the schema is current. */
export async function describeSchema(db: Knex): Promise<string> {
  const applied: string[] = await db('knex_migrations').orderBy('id').pluck('name');
  return `schema up to date: ${applied.length} migration(s) applied, the latest ${applied.at(-1) ?? 'none'}`;
}

/** A migration source over a fixed list of `[name, module]` pairs, applied in the list's order. */
export function listedMigrations(migrations: ReadonlyArray<readonly [string, Knex.Migration]>): Knex.MigrationSource<string> {
  return {
    getMigrations: async () => migrations.map(([name]) => name),
    getMigrationName: (name) => name,
    getMigration: async (name) => {
      const found = migrations.find(([candidate]) => candidate === name);
      if (!found) throw new Error(`unknown migration ${name}`);
      return found[1];
    },
  };
}
