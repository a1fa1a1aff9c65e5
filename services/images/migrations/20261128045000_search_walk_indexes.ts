import type { Knex } from 'knex';
import { createIndexConcurrently, dropIndexConcurrently } from '@platform/kit';

/**
 * The walks of a user's images, newest first, carry each image's lowered name: keyword search reads it
 * from the index (an index-only scan) instead of visiting the table and lowering every name it passes
 * (src/images/listing-repository.ts, searchSql). `lower(original_name)` is a key column after the
 * unique id, so it changes no order; `original_name` is included because Postgres plans an index-only
 * scan only when the columns an expression is made of are in the index too.
 *
 * The new indexes replace the two they extend (same leading columns, same order), built concurrently
 * before the old ones are dropped: lists keep an index all along.
 *
 * The images database also gets `random_page_cost = 1.1` (the usual setting for SSDs and data in
 * memory; Postgres's default of 4 prices a page read out of order as a spinning disk's). At 4 an index
 * as wide as these looks dearer than walking the primary key newest first and filtering, so for a user
 * whose images are older than another user's many, Postgres walked the other user's rows first (one
 * search at 1,000,000 images: 322 ms on the primary key, 1.8 ms on the user's index). Set only where
 * the server's own setting is higher, and left to the operator where the service's role may not
 * change its database's settings (a warning then: docs/operating.md, "Postgres settings").
 */
export const config = { transaction: false };

const WALKS = [
  { name: 'images_user_status_id_name', old: 'images_user_status_id', columns: 'user_id, status, id DESC' },
  { name: 'images_user_category_status_id_name', old: 'images_user_category_status_id', columns: 'user_id, category_id, status, id DESC' },
];

const RANDOM_PAGE_COST = 1.1;

export async function up(db: Knex): Promise<void> {
  for (const walk of WALKS) {
    await createIndexConcurrently(db, { name: walk.name, table: 'images', definition: `(${walk.columns}, lower(original_name)) INCLUDE (original_name)` });
    await dropIndexConcurrently(db, walk.old);
  }
  // New sessions read the database's setting; this one (a pooled connection the service goes on using) is told too.
  await db.raw(`DO $$
    BEGIN
      IF current_setting('random_page_cost')::float8 > ${RANDOM_PAGE_COST} THEN
        EXECUTE format('ALTER DATABASE %I SET random_page_cost = ${RANDOM_PAGE_COST}', current_database());
        PERFORM set_config('random_page_cost', '${RANDOM_PAGE_COST}', false);
      END IF;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE WARNING 'random_page_cost stays %: this role may not change the database''s settings (docs/operating.md, "Postgres settings")', current_setting('random_page_cost');
    END $$`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`DO $$
    BEGIN
      EXECUTE format('ALTER DATABASE %I RESET random_page_cost', current_database());
    EXCEPTION WHEN insufficient_privilege THEN
      NULL;
    END $$`);
  for (const walk of WALKS) {
    await createIndexConcurrently(db, { name: walk.old, table: 'images', definition: `(${walk.columns})` });
    await dropIndexConcurrently(db, walk.name);
  }
}
