import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * Icons fetched from the tools' own sites (served from our origin), link health with its history, and
 * the leases that let one replica at a time run a background job.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.schema.createTable('tool_icons', (t) => {
    t.integer('tool_id').primary().references('id').inTable('tools').onDelete('CASCADE');
    // Always a PNG we rendered ourselves (see icons/icon-image.ts): never the site's bytes as they came.
    t.binary('content').nullable();
    t.string('content_type', 50).nullable();
    // A digest of content: in the icon's URL and its ETag, so a new icon is a new URL.
    t.string('version', 16).nullable();
    t.string('source_url', 2000).nullable();
    // Set by the operator: a URL tried before anything else, or a file they gave (then never refetched).
    t.string('override_url', 2000).nullable();
    t.boolean('override_file').notNullable().defaultTo(false);
    t.timestamp('fetched_at', { useTz: true }).nullable();
    t.integer('failures').notNullable().defaultTo(0);
    t.timestamp('next_try_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.text('last_error').nullable();
    t.index(['next_try_at'], 'tool_icons_next_try_idx');
  });
  // Pages show an icon only when one is stored: a new or dropped icon must drop the cached pages too.
  await db.raw(`CREATE TRIGGER tool_icons_insert_revision AFTER INSERT ON tool_icons
    FOR EACH ROW WHEN (NEW.version IS NOT NULL) EXECUTE FUNCTION bump_catalog_revision()`);
  await db.raw(`CREATE TRIGGER tool_icons_update_revision AFTER UPDATE ON tool_icons
    FOR EACH ROW WHEN (OLD.version IS DISTINCT FROM NEW.version) EXECUTE FUNCTION bump_catalog_revision()`);
  await db.raw(`CREATE TRIGGER tool_icons_delete_revision AFTER DELETE ON tool_icons
    FOR EACH ROW WHEN (OLD.version IS NOT NULL) EXECUTE FUNCTION bump_catalog_revision()`);

  await db.schema.createTable('link_health', (t) => {
    t.integer('tool_id').primary().references('id').inTable('tools').onDelete('CASCADE');
    t.string('url', 2000).notNullable();
    t.string('status', 10).notNullable(); // ok | broken | unknown
    t.string('reason', 40).notNullable();
    t.integer('http_status').nullable();
    t.timestamp('checked_at', { useTz: true }).notNullable();
    t.timestamp('next_check_at', { useTz: true }).notNullable();
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.timestamp('last_ok_at', { useTz: true }).nullable();
    t.index(['status', 'checked_at'], 'link_health_status_idx');
    t.index(['next_check_at'], 'link_health_next_check_idx');
  });

  await db.schema.createTable('link_checks', (t) => {
    t.bigIncrements('id').primary();
    t.integer('tool_id').notNullable().references('id').inTable('tools').onDelete('CASCADE');
    t.string('url', 2000).notNullable();
    t.timestamp('checked_at', { useTz: true }).notNullable();
    t.string('status', 10).notNullable();
    t.string('reason', 40).notNullable();
    t.integer('http_status').nullable();
    t.integer('duration_ms').notNullable();
    t.index(['tool_id', 'checked_at'], 'link_checks_tool_idx');
  });

  await db.schema.createTable('job_leases', (t) => {
    t.string('name', 50).primary();
    t.string('holder', 100).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.schema.dropTableIfExists('job_leases');
  await db.schema.dropTableIfExists('link_checks');
  await db.schema.dropTableIfExists('link_health');
  await db.schema.dropTableIfExists('tool_icons');
}
