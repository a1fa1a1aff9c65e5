import type { Knex } from 'knex';
import { addConstraint, createIndexConcurrently, dropIndexConcurrently, lockSafe } from '@platform/kit';

/**
 * An image's objects live on the local disk or in an S3-compatible bucket. Each row says which, so
 * that both can serve at once while `storage:migrate` moves the images one by one (the platform keeps
 * serving meanwhile), and so that a migration stopped half-way resumes where it stopped.
 * `storage_leftover` names a backend that may still hold a copy of the image's objects (a migration
 * moved them and stopped before removing the source); the migration's next run and housekeeping
 * remove it.
 */
// Steps of their own: the CHECKs are validated, and the indexes built, while reads and writes go on.
export const config = { transaction: false };

export async function up(db: Knex): Promise<void> {
  await lockSafe(db, async (trx) => {
    // A constant default: the column is added without rewriting the table.
    await trx.raw("ALTER TABLE images ADD COLUMN IF NOT EXISTS storage_backend varchar(8) NOT NULL DEFAULT 'local', ADD COLUMN IF NOT EXISTS storage_leftover varchar(8)");
  });
  await addConstraint(db, 'images', 'images_storage_backend_known', "CHECK (storage_backend IN ('local', 's3'))");
  await addConstraint(db, 'images', 'images_storage_leftover_known', "CHECK (storage_leftover IN ('local', 's3') AND storage_leftover <> storage_backend)");
  await createIndexConcurrently(db, { name: 'images_storage_leftovers', table: 'images', definition: '(id) WHERE storage_leftover IS NOT NULL' });
  // A service started without the bucket checks that no image is in it: an index lookup, not a scan.
  await createIndexConcurrently(db, { name: 'images_in_bucket', table: 'images', definition: "(id) WHERE storage_backend = 's3'" });
}

export async function down(db: Knex): Promise<void> {
  const [counted] = (await db('images').where('storage_backend', '<>', 'local').count({ count: '*' })) as Array<{ count: unknown }>;
  const count = Number(counted?.count ?? 0);
  if (count > 0) throw new Error(`${count} image(s) are stored in S3: run storage:migrate --to local before migrating the schema down`);
  await dropIndexConcurrently(db, 'images_in_bucket');
  await dropIndexConcurrently(db, 'images_storage_leftovers');
  await lockSafe(db, async (trx) => {
    await trx.raw('ALTER TABLE images DROP COLUMN IF EXISTS storage_leftover');
    await trx.raw('ALTER TABLE images DROP COLUMN IF EXISTS storage_backend');
  });
}
