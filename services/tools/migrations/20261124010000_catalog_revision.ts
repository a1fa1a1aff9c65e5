import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * A counter that moves whenever what the website shows of the catalog changes, so that every replica can
 * drop its cached pages by reading one row instead of comparing the catalog. Statement triggers bump it
 * inside the writing transaction: the new number becomes visible exactly when the new rows do, whoever
 * wrote them (importer, CLI, a hand-written UPDATE). The visit counter is left out on purpose: a visit
 * updates only `visits`, fires no trigger, and so stays an in-place (HOT) update that writes nothing else
 * (visit counts on pages age by the site cache's TTL instead).
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.raw(`CREATE TABLE catalog_revision (
    id smallint PRIMARY KEY CHECK (id = 1),
    revision bigint NOT NULL
  )`);
  await db.raw('INSERT INTO catalog_revision (id, revision) VALUES (1, 1)');
  await db.raw(`CREATE FUNCTION bump_catalog_revision() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE catalog_revision SET revision = revision + 1 WHERE id = 1;
      RETURN NULL;
    END
  $$`);
  await db.raw(`CREATE TRIGGER tools_catalog_revision
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF slug, name, description, url, icon, category_id, tags, is_featured ON tools
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()`);
  await db.raw(`CREATE TRIGGER categories_catalog_revision
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE ON categories
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()`);
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('DROP TRIGGER IF EXISTS categories_catalog_revision ON categories');
  await db.raw('DROP TRIGGER IF EXISTS tools_catalog_revision ON tools');
  await db.raw('DROP FUNCTION IF EXISTS bump_catalog_revision()');
  await db.raw('DROP TABLE IF EXISTS catalog_revision');
}
