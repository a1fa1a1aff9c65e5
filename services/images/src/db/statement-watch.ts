import type { Knex } from 'knex';
import type { Logger } from 'pino';

/**
 * SQLSTATEs a named prepared statement gets when the connection it was prepared on is not the one it
 * runs on: a pooler in transaction mode hands each transaction another server connection.
 */
const PREPARED_STATEMENT_FAILURES = new Set(['26000', '42P05']);

export interface StatementWatch {
  /** The first failure's message, or null while every prepared statement has worked. */
  failure(): string | null;
}

/**
 * Watches the service's queries for prepared statements that fail because of a pooler. One such
 * failure makes /readyz answer 503 until the replica restarts (with DATABASE_PREPARED_STATEMENTS set
 * right), and is logged once with what to change.
 */
export function watchPreparedStatements(db: Knex, logger: Logger): StatementWatch {
  let failure: string | null = null;
  db.on('query-error', (error: { code?: string; message?: string }) => {
    if (failure !== null || !PREPARED_STATEMENT_FAILURES.has(error.code ?? '')) return;
    failure = error.message ?? error.code ?? 'prepared statement failed';
    logger.error(
      { err: error },
      `a prepared statement failed (${failure}): a pooler in transaction mode is between this replica and Postgres; set DATABASE_PREPARED_STATEMENTS=false or auto. /readyz answers 503 until the replica restarts`,
    );
  });
  return { failure: () => failure };
}
