import type { Knex } from 'knex';

export interface ConnectionBudget {
  /** Connections this process opens at most (DATABASE_POOL_MAX). */
  poolMax: number;
  /** The server's max_connections and superuser_reserved_connections, when they can be read. */
  maxConnections?: number;
  reservedConnections?: number;
  /** Connections open on the server right now, all clients. */
  inUse?: number;
  /** How many processes with pools of this size the server takes: (max_connections − reserved) ÷ pool. */
  replicasThatFit?: number;
}

/**
 * What a process can take from the server, read once at start so an operator sees the arithmetic of
 * docs/scaling.md in the log: replicas × pool (both services together) must stay under max_connections
 * minus the superuser reserve. Behind a pooler these are the server's numbers, not the pooler's.
 */
export async function readConnectionBudget(db: Knex, poolMax: number): Promise<ConnectionBudget> {
  if (db.client.config.client !== 'pg') return { poolMax: 1 };
  try {
    const { rows } = (await db.raw(
      "SELECT current_setting('max_connections')::int AS max, current_setting('superuser_reserved_connections')::int AS reserved, (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') AS in_use",
    )) as { rows: Array<{ max: number; reserved: number; in_use: number }> };
    const { max, reserved, in_use: inUse } = rows[0]!;
    return { poolMax, maxConnections: max, reservedConnections: reserved, inUse, replicasThatFit: Math.floor((max - reserved) / poolMax) };
  } catch {
    return { poolMax };
  }
}

/** The budget as one log line. */
export function describeConnectionBudget(budget: ConnectionBudget): string {
  if (budget.maxConnections === undefined) return `connection budget: up to ${budget.poolMax} connection(s) per replica (the server's max_connections could not be read)`;
  return (
    `connection budget: up to ${budget.poolMax} connection(s) per replica; the server allows ${budget.maxConnections} ` +
    `(${budget.reservedConnections} reserved for superusers, ${budget.inUse} open now): replicas × pool of both services together must stay ≤ ${budget.maxConnections! - budget.reservedConnections!}, ` +
    `${budget.replicasThatFit} replica(s) with this pool`
  );
}
