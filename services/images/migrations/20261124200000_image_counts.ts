import type { Knex } from 'knex';

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
export async function up(db: Knex): Promise<void> {
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
  await db.raw('CREATE TRIGGER image_counts_insert AFTER INSERT ON images REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_counts_apply()');
  await db.raw(
    'CREATE TRIGGER image_counts_update AFTER UPDATE ON images REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION image_counts_apply()',
  );
  await db.raw('CREATE TRIGGER image_counts_delete AFTER DELETE ON images REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION image_counts_apply()');
  // Existing images, counted once; the triggers keep it from here (the migration runs under a lock).
  await db.raw(`
    INSERT INTO image_counts (user_id, category_id, status, count)
    SELECT user_id, category_id, status, count(*) FROM images WHERE status IN ('stored', 'binned') GROUP BY user_id, category_id, status`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP TRIGGER IF EXISTS image_counts_insert ON images');
  await db.raw('DROP TRIGGER IF EXISTS image_counts_update ON images');
  await db.raw('DROP TRIGGER IF EXISTS image_counts_delete ON images');
  await db.raw('DROP FUNCTION IF EXISTS image_counts_apply()');
  await db.schema.dropTableIfExists('image_counts');
}
