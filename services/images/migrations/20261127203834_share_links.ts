import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * Sharing: `share_links` (an album, that is a category, shared by a link with an optional password,
 * expiry and view limit; revoked, never deleted, so its page can say so) and `images.page_public_at`
 * (when the image's public page was turned on; NULL, the default, is off).
 *
 * The new table and its index are made in the migration's transaction (nobody uses them yet). The
 * images column is nullable with no default: a catalog change, no table rewrite, under a short lock wait.
 */
export async function up(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.schema.createTable('share_links', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('category_id').notNullable().references('id').inTable('categories').onDelete('CASCADE');
    t.string('token', 32).notNullable().unique();
    t.text('password_hash').nullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.integer('max_views').nullable();
    t.integer('view_count').notNullable().defaultTo(0);
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw('ALTER TABLE share_links ADD CONSTRAINT share_links_views_valid CHECK ((max_views IS NULL OR max_views > 0) AND view_count >= 0)');
  await db.raw('CREATE INDEX share_links_user_category ON share_links (user_id, category_id, id DESC)');
  await db.raw('ALTER TABLE images ADD COLUMN page_public_at timestamptz');
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('ALTER TABLE images DROP COLUMN page_public_at');
  await db.schema.dropTableIfExists('share_links');
}
