import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

interface PgConnection {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

type Rows = Array<Record<string, unknown>>;

/** On a Postgres server. Inside a transaction knex's client hands out the transaction's own connection. */
const onServer = (db: Knex): boolean => db.client.config.client === 'pg';

/** The statement's SQL with `$n` placeholders and its name: a digest of the text, so one text always has one name. */
function compile(query: Knex.QueryBuilder): { name: string; text: string; bindings: readonly unknown[] } {
  const { sql: text, bindings } = query.toSQL().toNative();
  return { name: `r_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`, text, bindings };
}

async function execute(db: Knex, statement: { name: string; text: string }, values: readonly unknown[]): Promise<Rows> {
  const connection = (await db.client.acquireConnection()) as PgConnection;
  try {
    return (await connection.query({ name: statement.name, text: statement.text, values })).rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * Runs a read that requests make over and over (a list page) as a named prepared statement on a
 * Postgres server: each pooled connection parses and plans its text once, then only binds and
 * executes it. Builders that differ (a category filter) get statements of their own. On embedded
 * PGlite (one in-process connection) the query runs as it is.
 */
export async function preparedRows(db: Knex, query: Knex.QueryBuilder): Promise<Rows> {
  if (!onServer(db)) return (await query) as Rows;
  const statement = compile(query);
  return execute(db, statement, statement.bindings);
}

/**
 * A read of one fixed shape that every request makes (the credential lookup), built and compiled by
 * knex once rather than on each run: `build` puts `param(i)` where the i-th value of a run goes.
 * Runs as preparedRows does; on PGlite it is built with each run's values.
 */
export function preparedStatement(db: Knex, build: (param: (index: number) => Knex.Value) => Knex.QueryBuilder): (values: readonly Knex.Value[]) => Promise<Rows> {
  if (!onServer(db)) return async (values) => (await build((index) => values[index]!)) as Rows;
  // A string no caller passes, marking where each run's values go among the compiled bindings.
  const marker = `\u0000param:${randomUUID()}:`;
  const statement = compile(build((index) => `${marker}${index}`));
  const slots = statement.bindings.map((binding) => (typeof binding === 'string' && binding.startsWith(marker) ? Number(binding.slice(marker.length)) : -1));
  return (values) =>
    execute(
      db,
      statement,
      slots.map((slot, i) => (slot === -1 ? statement.bindings[i] : values[slot])),
    );
}
