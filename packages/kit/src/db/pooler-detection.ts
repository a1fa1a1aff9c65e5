import type { Knex } from 'knex';

interface PgClient {
  connection?: { stream?: { localPort?: number } };
  query(sql: string): Promise<{ rows: Array<{ client_port: number | null }> }>;
}

/**
 * True when this process talks to Postgres itself, not through a pooler (PgBouncer, a managed pooler):
 * the server sees the client port of this very socket. Behind a pooler it sees the pooler's own socket;
 * over a Unix socket there is no port to compare, and the answer is false (the safe one: a pooler in
 * transaction mode cannot carry named prepared statements across server connections).
 */
export async function connectsDirectly(db: Knex): Promise<boolean> {
  if (db.client.config.client !== 'pg') return false;
  const connection = (await db.client.acquireConnection()) as PgClient;
  try {
    const localPort = connection.connection?.stream?.localPort;
    const { rows } = await connection.query('SELECT client_port FROM pg_stat_activity WHERE pid = pg_backend_pid()');
    return typeof localPort === 'number' && rows[0]?.client_port === localPort;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
