import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * The directory's editors (the web admin at /admin/): accounts apart from the image host's users, their
 * sessions, and the sign-in counters rate-limiter-flexible keeps (its Postgres store's table shape).
 * `name_key` is the name as compared (NFKC, trimmed, lowercase: see editors/editor-name.ts), unique, so
 * `ALICE` is alice. A session's token is stored as its SHA-256 digest only; deleting an editor ends them.
 *
 * Tools get an editor-set `sort_order` (0 for every existing tool: their order stays the id order), and
 * the catalog revision trigger now watches it too, so a re-sorted tool clears cached pages.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.schema.createTable('editors', (t) => {
    t.increments('id').primary();
    t.string('name', 64).notNullable();
    t.string('name_key', 64).notNullable().unique();
    t.text('password_hash').notNullable();
    t.timestamp('disabled_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_sign_in_at', { useTz: true }).nullable();
  });
  await db.schema.createTable('editor_sessions', (t) => {
    t.bigIncrements('id').primary();
    t.integer('editor_id').notNullable().references('id').inTable('editors').onDelete('CASCADE');
    t.specificType('token_hash', 'char(64)').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['editor_id'], 'editor_sessions_editor_idx');
  });
  await db.schema.createTable('editor_sign_in_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });

  await db.schema.alterTable('tools', (t) => {
    t.integer('sort_order').notNullable().defaultTo(0);
  });
  await db.raw('DROP TRIGGER tools_catalog_revision ON tools');
  await db.raw(`CREATE TRIGGER tools_catalog_revision
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF slug, name, description, url, icon, category_id, tags, is_featured, sort_order ON tools
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()`);
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('DROP TRIGGER tools_catalog_revision ON tools');
  await db.raw(`CREATE TRIGGER tools_catalog_revision
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF slug, name, description, url, icon, category_id, tags, is_featured ON tools
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()`);
  await db.schema.alterTable('tools', (t) => t.dropColumn('sort_order'));
  await db.schema.dropTableIfExists('editor_sign_in_limits');
  await db.schema.dropTableIfExists('editor_sessions');
  await db.schema.dropTableIfExists('editors');
}
