import type { Knex } from 'knex';

/**
 * Two levels of categories and the API keys' requests per hour, added online (the service keeps serving
 * while this runs): a nullable column and a new table take no long lock, the constraints are added NOT VALID
 * and validated after (a scan that lets reads and writes go on), and each statement gives up after
 * `lock_timeout` instead of queueing every request behind a lock it waits for.
 *
 * - `categories.parent_id`: a subcategory's parent (one level only: the editor refuses a parent that has a
 *   parent itself, or a category with subcategories under a parent). A parent with subcategories cannot be
 *   deleted (RESTRICT). The categories trigger of the catalog revision fires on every UPDATE, so a moved
 *   category clears cached pages as any other edit does.
 * - `api_key_hourly_requests`: each key's requests counted per clock hour, added up from every replica's
 *   counts (usage/key-hours.ts); a key's rows go with it.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw("SET LOCAL lock_timeout = '5s'");
  await db.raw('ALTER TABLE categories ADD COLUMN parent_id integer');
  await db.raw('ALTER TABLE categories ADD CONSTRAINT categories_parent_fk FOREIGN KEY (parent_id) REFERENCES categories (id) ON DELETE RESTRICT NOT VALID');
  await db.raw('ALTER TABLE categories VALIDATE CONSTRAINT categories_parent_fk');
  await db.raw('ALTER TABLE categories ADD CONSTRAINT categories_parent_not_self CHECK (parent_id <> id) NOT VALID');
  await db.raw('ALTER TABLE categories VALIDATE CONSTRAINT categories_parent_not_self');
  await db.raw(`CREATE TABLE api_key_hourly_requests (
    api_key_id integer NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    hour timestamptz NOT NULL,
    requests bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (api_key_id, hour)
  )`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw("SET LOCAL lock_timeout = '5s'");
  await db.raw('DROP TABLE IF EXISTS api_key_hourly_requests');
  await db.raw('ALTER TABLE categories DROP COLUMN IF EXISTS parent_id');
}
