import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

interface PgConnection {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * Runs a read that every request makes (a credential lookup, a list page) as a named prepared
 * statement on a Postgres server: each pooled connection parses and plans its text once, then only
 * binds and executes it. The name is a digest of the SQL text, so one text always has one name and
 * builders that differ (a category filter, a keyword) get statements of their own. On embedded PGlite
 * (one in-process connection, no network) the query runs as it is.
 */
export async function preparedRows(db: Knex, query: Knex.QueryBuilder): Promise<Array<Record<string, unknown>>> {
  if (db.client.config.client !== 'pg') return (await query) as Array<Record<string, unknown>>;
  const { sql, bindings } = query.toSQL().toNative();
  const name = `r_${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
  const connection = (await db.client.acquireConnection()) as PgConnection;
  try {
    return (await connection.query({ name, text: sql, values: bindings })).rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
