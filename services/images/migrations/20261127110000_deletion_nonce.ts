import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * `deletion_nonce`: a random value the image's deletion link signs with its id, replaced when the
 * image is restored from the bin, so a link that binned the image once cannot bin it again.
 *
 * Added without a default, then given one, so that existing rows stay NULL with no table rewrite (a
 * volatile default in ADD COLUMN would fill every row); new rows get a random value. A NULL nonce
 * signs the link as before (`delete:<id>`), so links already handed out keep working until a restore.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.raw('ALTER TABLE images ADD COLUMN deletion_nonce uuid');
  await db.raw('ALTER TABLE images ALTER COLUMN deletion_nonce SET DEFAULT gen_random_uuid()');
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('ALTER TABLE images DROP COLUMN deletion_nonce');
}
