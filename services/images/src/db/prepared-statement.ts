import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

interface PgConnection {
  query(config: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

type Rows = Array<Record<string, unknown>>;

/** On a Postgres server. Inside a transaction knex's client hands out the transaction's own connection. */
const onServer = (db: Knex): boolean => db.client.config.client === 'pg';

/** The statement's SQL with `$n` placeholders and its name: a digest of the text, so one text always has one name. */
function compile(query: Knex.QueryBuilder | Knex.Raw): { name: string; text: string; bindings: readonly unknown[] } {
  const { sql: text, bindings } = query.toSQL().toNative();
  return { name: `r_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`, text, bindings };
}

async function execute(db: Knex, statement: { name?: string; text: string }, values: readonly unknown[]): Promise<Rows> {
  const connection = (await db.client.acquireConnection()) as PgConnection;
  try {
    return (await connection.query({ name: statement.name, text: statement.text, values })).rows;
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * A statement that requests make over and over (the credential lookup, a list page, an upload's two
 * writes), as a named prepared statement on a Postgres server: knex builds and compiles it once, each
 * pooled connection parses it once, and each run only binds its values and executes. `build` puts
 * `param(i)` where the i-th value of a run goes. On embedded PGlite (one in-process connection) it is
 * built with each run's values and runs as an ordinary query. `named: false` (DATABASE_PREPARED_STATEMENTS=false, for a pooler that
 * cannot carry named statements) keeps the one compilation but sends each run unnamed.
 */
export function preparedStatement(
  db: Knex,
  build: (param: (index: number) => Knex.Value) => Knex.QueryBuilder | Knex.Raw,
  options: { named: boolean } = { named: true },
): (values: readonly Knex.Value[]) => Promise<Rows> {
  if (!onServer(db)) {
    return async (values) => {
      const result = (await build((index) => values[index]!)) as Rows | { rows: Rows };
      return Array.isArray(result) ? result : result.rows; // a builder gives rows, knex.raw the driver's result
    };
  }
  // A string no caller passes, marking where each run's values go among the compiled bindings.
  const marker = `\u0000param:${randomUUID()}:`;
  const asked = new Set<number>();
  const statement = compile(
    build((index) => {
      asked.add(index);
      return `${marker}${index}`;
    }),
  );
  const slots = statement.bindings.map((binding) => (typeof binding === 'string' && binding.startsWith(marker) ? Number(binding.slice(marker.length)) : -1));
  // A parameter knex did not bind (limit() drops what is not a number) would silently be ignored.
  const lost = [...asked].filter((index) => !slots.includes(index));
  if (lost.length > 0) throw new Error(`prepared statement: parameter(s) ${lost.join(', ')} did not reach the SQL: ${statement.text}`);
  const sent = options.named ? statement : { text: statement.text };
  return (values) =>
    execute(
      db,
      sent,
      slots.map((slot, i) => (slot === -1 ? statement.bindings[i] : values[slot])),
    );
}
