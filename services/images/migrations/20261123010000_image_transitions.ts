import type { Knex } from 'knex';
import { addConstraint, createIndexConcurrently, limitLockWaits, lockSafe, widenVarchar } from '@platform/kit';

// Steps of their own: the CHECK is validated, and the index built, while reads and writes go on.
export const config = { transaction: false };

/**
 * Files and rows change in steps that a crash can interrupt: an upload writes its files between two
 * commits, and delete/restore/purge move or remove a file between two commits. The row records the
 * step in progress (pending, binning, restoring, purging) and when it began, so that recovery can
 * finish or undo whatever a dead process left, and no file ever outlives its row, or a row its file.
 */
export async function up(db: Knex): Promise<void> {
  await lockSafe(db, async (trx) => {
    // First, before any lock is taken: its catalog read then costs the requests queued behind nothing.
    await widenVarchar(trx, 'images', 'status', 16);
    // One statement: the exclusive lock is held for it alone. now() is stable, not volatile: the column
    // is added without rewriting the table.
    await trx.raw('ALTER TABLE images DROP CONSTRAINT IF EXISTS images_status_known, ADD COLUMN IF NOT EXISTS status_changed_at timestamptz NOT NULL DEFAULT now()');
  });
  await addConstraint(db, 'images', 'images_status_known', "CHECK (status IN ('pending', 'stored', 'binning', 'binned', 'restoring', 'purging'))");
  await createIndexConcurrently(db, { name: 'images_in_transition', table: 'images', definition: "(status_changed_at) WHERE status IN ('pending', 'binning', 'restoring', 'purging')" });
}

export async function down(db: Knex): Promise<void> {
  await db.transaction(async (trx) => {
    await limitLockWaits(trx);
    await downInOneTransaction(trx);
  });
}

/** Down is for development: one transaction, giving up (to be run again) on a busy lock. */
async function downInOneTransaction(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS images_in_transition');
  await db.raw('ALTER TABLE images DROP COLUMN status_changed_at');
  // Rows caught mid-step cannot be expressed in the old schema: finish the ones that can, drop uploads.
  await db.raw("UPDATE images SET status = 'binned' WHERE status IN ('binning', 'purging')");
  await db.raw("UPDATE images SET status = 'stored', deleted_at = NULL WHERE status = 'restoring'");
  await db.raw("DELETE FROM images WHERE status = 'pending'");
  await db.raw('ALTER TABLE images DROP CONSTRAINT images_status_known');
  await db.raw('ALTER TABLE images ALTER COLUMN status TYPE varchar(8)');
  await db.raw("ALTER TABLE images ADD CONSTRAINT images_status_known CHECK (status IN ('stored', 'binned'))");
}
