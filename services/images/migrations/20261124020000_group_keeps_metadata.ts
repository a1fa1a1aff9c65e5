import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * Stored originals lose their personal metadata (GPS, serials, XMP…) unless the user's membership
 * group keeps it: a group of photographers may want their EXIF served as uploaded.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.schema.alterTable('groups', (t) => {
    t.boolean('keep_metadata').notNullable().defaultTo(false);
  });
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.schema.alterTable('groups', (t) => t.dropColumn('keep_metadata'));
}
