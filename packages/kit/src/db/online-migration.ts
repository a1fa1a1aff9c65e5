import type { Knex } from 'knex';

/**
 * Helpers that keep a migration online on a busy table: no read or write waits behind a migration for
 * longer than MIGRATION_LOCK_TIMEOUT_MS. The rules they follow (and the test that checks every migration,
 * packages/kit/src/testing/migration-rules.ts) are in docs/operating.md, "Writing a migration".
 */

/** How long a migration statement may wait for a lock (and so hold up the requests queued behind it) before it gives up and is retried. */
export const MIGRATION_LOCK_TIMEOUT_MS = 50;
const LOCK_RETRY_LIMIT_MS = 10 * 60 * 1000;

/** The marker helper-made statements carry, so the rules test knows a statement's safety was checked here. */
const checked = (helper: string) => `/* online-safe:${helper} */`;

/**
 * For a migration whose statements are all quick (catalog-only DDL, new tables, triggers): the
 * migration's own transaction gives up on any lock after MIGRATION_LOCK_TIMEOUT_MS, and migrateToLatest
 * runs the whole migration again a moment later. Call first in `up` and `down`.
 */
export async function limitLockWaits(db: Knex): Promise<void> {
  await db.raw(`SET LOCAL lock_timeout = '${MIGRATION_LOCK_TIMEOUT_MS}ms'`);
}

function isLockTimeout(error: unknown): boolean {
  return (error as { code?: string }).code === '55P03';
}

/**
 * One step of a migration that runs outside a transaction (`export const config = { transaction: false }`):
 * `work` runs in a transaction of its own that gives up on any lock after MIGRATION_LOCK_TIMEOUT_MS and
 * is tried again with a growing pause. Keep each step quick once it has its locks: a request queued behind
 * it waits for the step's wait plus everything the step does after its first lock (one ALTER TABLE with
 * several actions, not several statements; catalog reads before the first lock).
 */
export async function lockSafe<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (db.isTransaction) throw new Error('lockSafe runs its own transactions: export const config = { transaction: false } from this migration');
  const deadline = Date.now() + LOCK_RETRY_LIMIT_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await db.transaction(async (trx) => {
        await limitLockWaits(trx);
        return work(trx);
      });
    } catch (error) {
      if (!isLockTimeout(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 20 * 2 ** attempt) * (0.5 + Math.random())));
    }
  }
}

/**
 * CREATE INDEX CONCURRENTLY (reads and writes go on while it builds), outside any transaction. An invalid
 * index left by an interrupted build is dropped first, so running the migration again finishes the job.
 * `definition` is what follows the table name: `(user_id, id DESC) WHERE status = 'stored'`.
 */
export async function createIndexConcurrently(db: Knex, index: { name: string; table: string; definition: string; unique?: boolean }): Promise<void> {
  if (db.isTransaction) throw new Error('CREATE INDEX CONCURRENTLY cannot run in a transaction: export const config = { transaction: false } from this migration');
  const { rows } = (await db.raw('SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ?', [index.name])) as { rows: Array<{ valid: boolean }> };
  if (rows[0]?.valid === false) await db.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${index.name}`);
  await db.raw(`CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.table} ${index.definition}`);
}

/** DROP INDEX CONCURRENTLY, outside any transaction. */
export async function dropIndexConcurrently(db: Knex, name: string): Promise<void> {
  if (db.isTransaction) throw new Error('DROP INDEX CONCURRENTLY cannot run in a transaction: export const config = { transaction: false } from this migration');
  await db.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}

async function constraintExists(db: Knex, table: string, name: string): Promise<boolean> {
  const { rows } = (await db.raw('SELECT 1 FROM pg_constraint WHERE conname = ? AND conrelid = to_regclass(?)', [name, table])) as { rows: unknown[] };
  return rows.length > 0;
}

/**
 * A CHECK or FOREIGN KEY constraint on a table with rows: added NOT VALID (a moment's lock, no scan),
 * then validated in a second step, whose scan lets reads and writes go on. `definition` is
 * `CHECK (…)` or `FOREIGN KEY (…) REFERENCES …`.
 */
export async function addConstraint(db: Knex, table: string, name: string, definition: string): Promise<void> {
  await lockSafe(db, async (trx) => {
    if (!(await constraintExists(trx, table, name))) await trx.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${name} ${definition} NOT VALID`);
  });
  await lockSafe(db, (trx) => trx.raw(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${name}`));
}

/** SET NOT NULL without a scan under an exclusive lock: a validated CHECK (column IS NOT NULL) first, which Postgres uses as proof. */
export async function setNotNull(db: Knex, table: string, column: string): Promise<void> {
  const proof = `${table}_${column}_not_null`;
  await addConstraint(db, table, proof, `CHECK (${column} IS NOT NULL)`);
  await lockSafe(db, async (trx) => {
    await trx.raw(`${checked('set-not-null')} ALTER TABLE ${table} ALTER COLUMN ${column} SET NOT NULL`);
    await trx.raw(`ALTER TABLE ${table} DROP CONSTRAINT IF EXISTS ${proof}`);
  });
}

/**
 * A varchar column made longer (or text): no table rewrite, but Postgres may rebuild the indexes that
 * hold the column under the exclusive lock (over 200 ms for two such indexes on 1,000,000 rows), so
 * only for a column no index holds. Nothing happens when the column is already that long.
 */
export async function widenVarchar(trx: Knex.Transaction, table: string, column: string, length: number | 'text'): Promise<void> {
  const { rows } = (await trx.raw('SELECT character_maximum_length AS length FROM information_schema.columns WHERE table_name = ? AND column_name = ?', [table, column])) as {
    rows: Array<{ length: number | null }>;
  };
  const current = rows[0]?.length;
  if (length !== 'text' && current !== null && current !== undefined && current >= length) return;
  if (length !== 'text' && (current === null || current === undefined)) throw new Error(`widenVarchar: ${table}.${column} is not a varchar`);
  await trx.raw(`${checked('widen-varchar')} ALTER TABLE ${table} ALTER COLUMN ${column} TYPE ${length === 'text' ? 'text' : `varchar(${length})`}`);
}

/**
 * An UPDATE of every row of a busy table, in batches of `batchSize` ids, each its own short
 * transaction: no row stays locked for more than one batch. `set` and `where` are SQL over the table's
 * columns (`where` narrows the rows that still need it).
 */
export async function updateInBatches(db: Knex, options: { table: string; set: string; where?: string; batchSize?: number }): Promise<void> {
  const { table, set, where = 'true', batchSize = 5_000 } = options;
  const { rows } = (await db.raw(`SELECT coalesce(max(id), 0) AS last FROM ${table}`)) as { rows: Array<{ last: string | number }> };
  const last = Number(rows[0]?.last ?? 0);
  for (let from = 0; from < last; from += batchSize) {
    await lockSafe(db, (trx) => trx.raw(`${checked('batch')} UPDATE ${table} SET ${set} WHERE id > ? AND id <= ? AND (${where})`, [from, from + batchSize]));
  }
}
