import type { Knex } from 'knex';
import { createIndexConcurrently, dropIndexConcurrently, lockSafe } from '@platform/kit';

// Steps of their own: the index is dropped (and, going down, built) concurrently.
export const config = { transaction: false };

/**
 * Every tool detail read adds a visit. With `visits` in an index, each of those updates writes a new
 * entry into every index of `tools` (the trigram GIN one included). Without it, and with room left on
 * each page, Postgres updates the row in place (a HOT update) and touches no index. The top 10 by
 * visits is read only when the stats cache expires, where a top-N sort over the table is cheap.
 */
export async function up(db: Knex): Promise<void> {
  await dropIndexConcurrently(db, 'tools_popular_idx');
  await lockSafe(db, (trx) => trx.raw('ALTER TABLE tools SET (fillfactor = 85)'));
}

export async function down(db: Knex): Promise<void> {
  await lockSafe(db, (trx) => trx.raw('ALTER TABLE tools RESET (fillfactor)'));
  await createIndexConcurrently(db, { name: 'tools_popular_idx', table: 'tools', definition: '(visits DESC, id ASC)' });
}
