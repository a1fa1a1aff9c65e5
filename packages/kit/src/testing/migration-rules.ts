import type { Knex } from 'knex';
import { databaseTarget } from '../db/database-target';
import { openDb } from '../db/open-db';
import { createTestDatabase } from './test-database';

/** One statement of one migration that breaks a rule, and what to write instead. */
export interface MigrationViolation {
  migration: string;
  statement: string;
  rule: string;
}

const ONLINE = 'from @platform/kit (docs/operating.md, "Writing a migration")';
const OWN_TRANSACTIONS = 'in a migration that exports `config = { transaction: false }`';

/** The tables a statement touches or locks, lower case, without quotes. */
function tablesOf(sql: string): string[] {
  const names = new Set<string>();
  const patterns = [
    /\balter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?"?(\w+)"?/g,
    /\bcreate\s+(?:unique\s+)?index\s+(?:concurrently\s+)?(?:if\s+not\s+exists\s+)?(?:"?\w+"?\s+)?on\s+(?:only\s+)?"?(\w+)"?/g,
    /\b(?:create|drop)\s+trigger\s+(?:if\s+exists\s+)?"?\w+"?[\s\S]*?\bon\s+"?(\w+)"?/g,
    /\breferences\s+"?(\w+)"?/g,
    /\bupdate\s+"?(\w+)"?\s+(?:as\s+\w+\s+)?set\b/g,
    /\bdelete\s+from\s+"?(\w+)"?/g,
    /\b(?:lock|truncate)\s+(?:table\s+)?"?(\w+)"?/g,
    /\bdrop\s+table\s+(?:if\s+exists\s+)?"?(\w+)"?/g,
  ];
  for (const pattern of patterns) for (const match of sql.matchAll(pattern)) names.add(match[1]!);
  return [...names];
}

/** The rules a statement on `existing` tables breaks; `lockTimeout` says whether its transaction limits lock waits. */
function violations(sql: string, existing: Set<string>, lockTimeout: boolean, migrationDone: { validated: boolean }): string[] {
  const text = sql.toLowerCase().replace(/\s+/g, ' ');
  const touched = tablesOf(text).filter((table) => existing.has(table));
  // An index's table is not in the statement: any DROP INDEX counts as one on a busy table.
  if (/^(\/\*[^*]*\*\/ )?drop index\b/.test(text.trim()) && !/\bconcurrently\b/.test(text)) {
    return [`DROP INDEX takes an exclusive lock on its table: use dropIndexConcurrently(db, name) ${ONLINE}, ${OWN_TRANSACTIONS}`];
  }
  if (touched.length === 0) return [];
  const on = touched.join(', ');
  const found: string[] = [];
  const marked = (helper: string) => text.includes(`/* online-safe:${helper} */`);
  if (/\bcreate (unique )?index\b/.test(text) && !/\bconcurrently\b/.test(text)) {
    found.push(`CREATE INDEX on ${on}, which has rows, blocks its writes for the whole build: use createIndexConcurrently(db, { name, table, definition }) ${ONLINE}, ${OWN_TRANSACTIONS}`);
  }
  const altered = /\balter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?"?(\w+)"?/.exec(text)?.[1];
  const alteredBusy = altered !== undefined && existing.has(altered);
  if (alteredBusy && /\badd constraint\b[^;]*\b(check|foreign key)\b/.test(text) && !/\bnot valid\b/.test(text)) {
    found.push(`ADD CONSTRAINT … CHECK/FOREIGN KEY on ${on} scans every row under a lock: use addConstraint(db, table, name, definition) ${ONLINE} (NOT VALID, then VALIDATE), ${OWN_TRANSACTIONS}`);
  }
  if (alteredBusy && /\badd constraint\b[^;]*\b(unique|primary key)\b/.test(text) && !/\busing index\b/.test(text)) {
    found.push(`ADD CONSTRAINT … UNIQUE/PRIMARY KEY on ${on} builds an index under a lock: createIndexConcurrently(db, { unique: true, … }) first, then ADD CONSTRAINT name UNIQUE USING INDEX name`);
  }
  if (/\badd (column )?[^;]*\breferences\b/.test(text) && !/\bnot valid\b/.test(text) && /\badd column\b/.test(text)) {
    found.push(`ADD COLUMN … REFERENCES on ${on} validates under a lock: add the column, then addConstraint(db, table, name, 'FOREIGN KEY (…) REFERENCES …') ${ONLINE}`);
  }
  if (/\brename (column )?\w+ to\b|\brename to\b|\brename column\b/.test(text)) {
    found.push(`RENAME on ${on} breaks the replicas still running the previous release: expand/contract instead (add the new column, write both, backfill with updateInBatches, read the new one, drop the old one in a later release)`);
  }
  if (/\balter column "?\w+"? (set data )?type\b/.test(text) && !marked('widen-varchar')) {
    found.push(`ALTER COLUMN … TYPE on ${on} rewrites the table under an exclusive lock: widenVarchar(trx, table, column, length) for a longer varchar, else expand/contract with a new column`);
  }
  if (/\bset not null\b/.test(text) && !marked('set-not-null') && !migrationDone.validated) {
    found.push(`SET NOT NULL on ${on} scans every row under an exclusive lock: use setNotNull(db, table, column) ${ONLINE}`);
  }
  if (/\badd (column )?(if not exists )?"?\w+"? [^;]*\bdefault (gen_random_uuid|uuid_generate|random|clock_timestamp|nextval)\b|\b(big)?serial\b|\bgenerated always\b/.test(text) && /\badd\b/.test(text)) {
    found.push(`ADD COLUMN on ${on} with a volatile default (or serial, identity) rewrites the table under an exclusive lock: add it without a default, SET DEFAULT in a second statement, backfill with updateInBatches`);
  }
  if (/^(\/\*[^*]*\*\/ )?(update|delete)\b/.test(text.trim()) && !marked('batch') && !/\bwhere "?id"? = /.test(text)) {
    found.push(`UPDATE/DELETE of many rows of ${on} locks them all until the migration ends: use updateInBatches(db, { table, set, where }) ${ONLINE}, or one row at a time (WHERE id = ?)`);
  }
  const locks = /^(\/\*[^*]*\*\/ )?(alter table|create (unique )?index|create trigger|drop trigger|drop index|lock|truncate|drop table|create table)\b/.test(text.trim());
  if (locks && !/\bconcurrently\b/.test(text) && !lockTimeout) {
    found.push(`this statement locks ${on} with no lock_timeout, so every request queued behind it waits as long as it does: call limitLockWaits(db) first in the migration, or run it in lockSafe(db, (trx) => …) ${ONLINE}`);
  }
  return found;
}

/**
 * Applies the migrations of `db`'s migration source one by one to its (empty) database and checks every
 * statement each one sends against the online rules; returns what breaks them. A table counts as busy
 * (rows, readers and writers) when an earlier migration created it.
 */
export async function checkMigrationRules(db: Knex): Promise<MigrationViolation[]> {
  const found: MigrationViolation[] = [];
  let current = '';
  let existing = new Set<string>();
  let done = { validated: false };
  const connections = new Map<string, { inTransaction: boolean; lockTimeout: boolean }>();
  const onQuery = (query: { sql: string; __knexUid?: string }) => {
    const uid = query.__knexUid ?? '';
    const state = connections.get(uid) ?? { inTransaction: false, lockTimeout: false };
    connections.set(uid, state);
    const text = query.sql.trim().toLowerCase();
    if (/^begin\b/.test(text)) Object.assign(state, { inTransaction: true, lockTimeout: false });
    else if (/^(commit|rollback)\b/.test(text)) Object.assign(state, { inTransaction: false, lockTimeout: false });
    else if (/^set local lock_timeout\b/.test(text) && !/'0'|= 0\b/.test(text)) state.lockTimeout = state.inTransaction;
    if (!current) return;
    if (/\bvalidate constraint\b/.test(text)) done.validated = true;
    for (const rule of violations(query.sql, existing, state.inTransaction && state.lockTimeout, done)) found.push({ migration: current, statement: query.sql.trim().replace(/\s+/g, ' ').slice(0, 300), rule });
  };
  const source = (db.client.config as Knex.Config).migrations!.migrationSource!;
  const names = (await source.getMigrations([])).map((migration) => source.getMigrationName(migration));
  db.on('query', onQuery);
  try {
    for (const name of names) {
      const { rows } = (await db.raw("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'knex\\_%'")) as { rows: Array<{ tablename: string }> };
      existing = new Set(rows.map((row) => row.tablename));
      done = { validated: false };
      current = name;
      await db.migrate.up();
      current = '';
    }
  } finally {
    db.off('query', onQuery);
  }
  return found;
}

/** The violations as the failure message: one paragraph per statement, naming the file and what to change. */
export function describeViolations(found: MigrationViolation[]): string {
  return found.map((v) => `migrations/${v.migration}.ts:\n  ${v.statement}\n  → ${v.rule}`).join('\n\n');
}

/**
 * A service's check of its own migrations (`migrationSource`): applied one by one to a new test database
 * (named from `prefix`), it fails listing every statement that breaks the online rules.
 */
export async function expectOnlineSafeMigrations(prefix: string, migrationSource: Knex.MigrationSource<unknown>): Promise<void> {
  const database = await createTestDatabase(prefix);
  const db = await openDb(databaseTarget(database.url, process.cwd()), { migrationSource });
  try {
    const found = await checkMigrationRules(db);
    if (found.length > 0) throw new Error(`${found.length} statement(s) are not online-safe:\n\n${describeViolations(found)}`);
  } finally {
    await db.destroy();
    await database.drop();
  }
}
