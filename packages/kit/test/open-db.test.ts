import type { Knex } from 'knex';
import { openDb } from '../src/db/open-db';

const noMigrations: Knex.MigrationSource<string> = {
  getMigrations: async () => [],
  getMigrationName: (name) => name,
  getMigration: async () => ({ up: async () => {}, down: async () => {} }),
};

// The embedded database has one connection: on a busy
// machine, queries queue for it, and a wait must never be reported as a full pool.

test('when a query is queued behind a transaction holding the embedded connection, then it waits for it (up to 10 minutes) instead of being refused', async () => {
  const db = await openDb({ kind: 'pglite-memory' }, { migrationSource: noMigrations });
  try {
    const pool = (db.client as { pool: { max: number } }).pool;
    expect(pool.max).toBe(1);
    // knex's own default is 60 s, after which it reports "Timeout acquiring a connection. The pool is probably full."
    expect(db.client.config.acquireConnectionTimeout).toBe(10 * 60 * 1000);

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const transaction = db.transaction(async (trx) => {
      await trx.raw('SELECT 1');
      holding();
      await released;
    });
    await held;
    let settled = false;
    const queued = db.raw('SELECT 42 AS answer').finally(() => (settled = true));
    // However many turns of the event loop pass, it cannot run while the transaction holds PGlite.
    for (let turn = 0; turn < 50; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    await transaction;
    expect((await queued).rows).toEqual([{ answer: 42 }]);
  } finally {
    await db.destroy();
  }
});
