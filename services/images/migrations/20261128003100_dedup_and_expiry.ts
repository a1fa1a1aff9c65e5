import type { Knex } from 'knex';
import { createIndexConcurrently, dropIndexConcurrently, lockSafe } from '@platform/kit';

/**
 * Deduplication and expiry per image.
 *
 * - `images.content_hash`: the SHA-256 of the bytes an upload received (before any metadata was
 *   removed). A unique index over (user_id, content_hash) of the stored images holds each owner's
 *   list to one image per content: two identical uploads of one owner that race end as one image
 *   (the second to complete answers the first's image and gives its charge back). Owners never share:
 *   the index is per owner, and nothing compares hashes across owners. Images from before this
 *   migration have no hash (NULL, which the index ignores): only uploads after it deduplicate.
 * - `images.expires_at`: when the image moves into its owner's bin by itself (NULL: never); the
 *   expiry job finds what is due through a partial index.
 * - `job_leases`: one replica at a time runs a background job (the expiry job every minute).
 *
 * Nullable columns without a default: catalog changes, no table rewrite. The indexes are built
 * concurrently while reads and writes go on.
 */
export const config = { transaction: false };

export async function up(db: Knex): Promise<void> {
  await lockSafe(db, (trx) => trx.raw('ALTER TABLE images ADD COLUMN IF NOT EXISTS content_hash bytea, ADD COLUMN IF NOT EXISTS expires_at timestamptz'));
  await lockSafe(db, (trx) =>
    trx.raw(`CREATE TABLE IF NOT EXISTS job_leases (
      name varchar(64) PRIMARY KEY,
      holder varchar(128) NOT NULL,
      expires_at timestamptz NOT NULL
    )`),
  );
  await createIndexConcurrently(db, {
    name: 'images_owner_content_unique',
    table: 'images',
    definition: "(user_id, content_hash) WHERE status = 'stored' AND content_hash IS NOT NULL",
    unique: true,
  });
  await createIndexConcurrently(db, { name: 'images_expiring', table: 'images', definition: "(expires_at) WHERE status = 'stored' AND expires_at IS NOT NULL" });
}

export async function down(db: Knex): Promise<void> {
  await dropIndexConcurrently(db, 'images_expiring');
  await dropIndexConcurrently(db, 'images_owner_content_unique');
  await lockSafe(db, (trx) => trx.raw('DROP TABLE IF EXISTS job_leases'));
  await lockSafe(db, (trx) => trx.raw('ALTER TABLE images DROP COLUMN IF EXISTS expires_at, DROP COLUMN IF EXISTS content_hash'));
}
