import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * English names and descriptions of tools and categories, filled by editors (import files, later the web
 * admin); empty means "not translated", and the English pages then show the Chinese text. The tools trigger
 * that moves the catalog revision names its columns, so it is re-created with the new ones: editing an
 * English field must refresh cached pages as editing the Chinese one does.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.schema.alterTable('categories', (t) => {
    t.string('name_en', 100).notNullable().defaultTo('');
    t.text('description_en').notNullable().defaultTo('');
  });
  await db.schema.alterTable('tools', (t) => {
    t.string('name_en', 200).notNullable().defaultTo('');
    t.text('description_en').notNullable().defaultTo('');
  });
  await db.raw('DROP TRIGGER tools_catalog_revision ON tools');
  await db.raw(`CREATE TRIGGER tools_catalog_revision
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF slug, name, description, url, icon, category_id, tags, is_featured, sort_order, name_en, description_en ON tools
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()`);
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('DROP TRIGGER tools_catalog_revision ON tools');
  await db.raw(`CREATE TRIGGER tools_catalog_revision
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF slug, name, description, url, icon, category_id, tags, is_featured, sort_order ON tools
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()`);
  await db.schema.alterTable('tools', (t) => {
    t.dropColumn('description_en');
    t.dropColumn('name_en');
  });
  await db.schema.alterTable('categories', (t) => {
    t.dropColumn('description_en');
    t.dropColumn('name_en');
  });
}
