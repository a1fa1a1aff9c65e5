import type { Knex } from 'knex';

/**
 * The index of tools' tags, for the tag pages (`/tag/<name>`: `tags @> ARRAY[name]`), built without
 * blocking writes to `tools` (CONCURRENTLY, which cannot run in a transaction: this migration declares
 * none). Its statements run on one pinned connection, so `lock_timeout` applies to them. A build that
 * failed half-way leaves an INVALID index behind; it is dropped before trying again.
 */
export const config = { transaction: false };

const INDEX = 'tools_tags_gin_idx';

async function onOneConnection(db: Knex, statements: string[]): Promise<void> {
  const connection = await db.client.acquireConnection();
  try {
    for (const statement of statements) await db.raw(statement).connection(connection);
  } finally {
    await db.client.releaseConnection(connection);
  }
}

export async function up(db: Knex): Promise<void> {
  const invalid = await db.raw<{ rows: unknown[] }>(
    'SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND NOT i.indisvalid',
    [INDEX],
  );
  await onOneConnection(db, [
    "SET lock_timeout = '5s'",
    ...(invalid.rows.length > 0 ? [`DROP INDEX CONCURRENTLY IF EXISTS ${INDEX}`] : []),
    `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${INDEX} ON tools USING gin (tags)`,
    'RESET lock_timeout',
  ]);
}

export async function down(db: Knex): Promise<void> {
  await onOneConnection(db, ["SET lock_timeout = '5s'", `DROP INDEX CONCURRENTLY IF EXISTS ${INDEX}`, 'RESET lock_timeout']);
}
