import type { Knex } from 'knex';
import { lockSafe } from '@platform/kit';

/**
 * Per-user, per-category counts of stored and binned images, so a list's exact `total` is a sum over a
 * few rows instead of a count over all of the user's images (a sequential scan at 100,000 of them).
 *
 * Statement triggers keep them: every INSERT, UPDATE or DELETE on images applies its net change, in
 * the same transaction, whatever code path made it (upload, delete, restore, purge, crash recovery,
 * an operator's SQL). The counts therefore commit or roll back with the rows they count. Rows are
 * upserted in key order, so concurrent statements lock counters in one order and cannot deadlock on
 * them. Only the resting states are counted: pending uploads never queue on a counter.
 */
// Steps of their own: the triggers take a moment's lock, the existing images are counted without one.
export const config = { transaction: false };

const COUNT_BATCH = 1_000;

export async function up(db: Knex): Promise<void> {
  await lockSafe(db, (trx) => createCountsAndTriggers(trx));
  await countExistingImages(db);
}

/**
 * The images committed before the triggers, counted without holding writers up: in one snapshot, the
 * difference between counting the rows and what the counters hold (the triggers' share of the same
 * snapshot) is what no trigger counted; it is added to the live counters, where additions commute with
 * the triggers' own. Creating a trigger waits for every writer in progress, so no write falls between.
 * Running it again adds nothing: the difference is then zero.
 */
async function countExistingImages(db: Knex): Promise<void> {
  const missing = await db.transaction(async (trx) => {
    await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = (await trx.raw(`
      SELECT user_id, category_id, status, sum(n)::bigint AS n FROM (
        SELECT user_id, category_id, status, count(*) AS n FROM images WHERE status IN ('stored', 'binned') GROUP BY user_id, category_id, status
        UNION ALL
        SELECT user_id, category_id, status, -count AS n FROM image_counts
      ) AS difference
      GROUP BY user_id, category_id, status HAVING sum(n) <> 0 ORDER BY user_id, category_id, status`)) as {
      rows: Array<{ user_id: string; category_id: string; status: string; n: string }>;
    };
    return rows;
  });
  for (let start = 0; start < missing.length; start += COUNT_BATCH) {
    const batch = missing.slice(start, start + COUNT_BATCH);
    await lockSafe(db, (trx) =>
      trx.raw(
        `INSERT INTO image_counts AS c (user_id, category_id, status, count)
         SELECT m.user_id, m.category_id, m.status, m.n FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::bigint[]) AS m (user_id, category_id, status, n)
         WHERE EXISTS (SELECT 1 FROM users WHERE users.id = m.user_id)
         ON CONFLICT (user_id, category_id, status) DO UPDATE SET count = c.count + EXCLUDED.count`,
        [batch.map((row) => row.user_id), batch.map((row) => row.category_id), batch.map((row) => row.status), batch.map((row) => row.n)],
      ),
    );
  }
}

async function createCountsAndTriggers(db: Knex): Promise<void> {
  if (await db.schema.hasTable('image_counts')) return;
  await db.schema.createTable('image_counts', (t) => {
    t.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('category_id').notNullable();
    t.string('status', 16).notNullable();
    t.bigInteger('count').notNullable();
    t.primary(['user_id', 'category_id', 'status']);
  });
  await db.raw(`
    CREATE FUNCTION image_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO image_counts AS c (user_id, category_id, status, count)
          SELECT user_id, category_id, status, count(*) FROM new_rows
          WHERE status IN ('stored', 'binned')
          GROUP BY user_id, category_id, status ORDER BY user_id, category_id, status
        ON CONFLICT (user_id, category_id, status) DO UPDATE SET count = c.count + EXCLUDED.count;
      ELSIF TG_OP = 'DELETE' THEN
        -- Only an update: when the owner is being deleted, its counters may already be gone.
        UPDATE image_counts AS c SET count = c.count - d.n
        FROM (
          SELECT user_id, category_id, status, count(*) AS n FROM old_rows
          WHERE status IN ('stored', 'binned')
          GROUP BY user_id, category_id, status ORDER BY user_id, category_id, status
        ) AS d
        WHERE c.user_id = d.user_id AND c.category_id = d.category_id AND c.status = d.status;
      ELSE
        INSERT INTO image_counts AS c (user_id, category_id, status, count)
          SELECT user_id, category_id, status, sum(n) FROM (
            SELECT user_id, category_id, status, -1 AS n FROM old_rows WHERE status IN ('stored', 'binned')
            UNION ALL
            SELECT user_id, category_id, status, 1 AS n FROM new_rows WHERE status IN ('stored', 'binned')
          ) AS changes
          GROUP BY user_id, category_id, status HAVING sum(n) <> 0 ORDER BY user_id, category_id, status
        ON CONFLICT (user_id, category_id, status) DO UPDATE SET count = c.count + EXCLUDED.count;
      END IF;
      RETURN NULL;
    END
    $$`);
  // One statement (a DO block) for the three: writers wait on the first one's lock until the step commits.
  await db.raw(`
    DO $$ BEGIN
      CREATE TRIGGER image_counts_insert AFTER INSERT ON images REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_counts_apply();
      CREATE TRIGGER image_counts_update AFTER UPDATE ON images REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_counts_apply();
      CREATE TRIGGER image_counts_delete AFTER DELETE ON images REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION image_counts_apply();
    END $$`);
}

export async function down(db: Knex): Promise<void> {
  await lockSafe(db, (trx) => dropCountsAndTriggers(trx));
}

async function dropCountsAndTriggers(db: Knex): Promise<void> {
  await db.raw('DROP TRIGGER IF EXISTS image_counts_insert ON images');
  await db.raw('DROP TRIGGER IF EXISTS image_counts_update ON images');
  await db.raw('DROP TRIGGER IF EXISTS image_counts_delete ON images');
  await db.raw('DROP FUNCTION IF EXISTS image_counts_apply()');
  await db.schema.dropTableIfExists('image_counts');
}
