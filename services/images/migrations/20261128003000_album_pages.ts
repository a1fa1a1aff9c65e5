import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * Public image pages per album: `categories.pages_public_at` (when the owner made every image of the
 * category reachable at its `/p/<key>` page; NULL, the default, is off). An image's page is on while
 * its own `page_public_at` or its category's `pages_public_at` is set, so turning the album off keeps
 * the pages of images opted in one by one.
 *
 * Nullable with no default: a catalog change, no table rewrite, under a short lock wait.
 */
export async function up(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('ALTER TABLE categories ADD COLUMN pages_public_at timestamptz');
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('ALTER TABLE categories DROP COLUMN pages_public_at');
}
