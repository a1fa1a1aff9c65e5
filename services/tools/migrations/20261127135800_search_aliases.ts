import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';
import { DEFAULT_SEARCH_ALIASES } from '../src/catalog/search-default-aliases';
import { normalizeSearchText } from '../src/catalog/search-normalize';

/**
 * Search moved into memory (src/catalog/search-engine.ts): the per-tool documents of `tool_search` are no
 * longer read or written, and go. The alias table search reads with the catalog (screenshot ↔ 截图, 谷歌 ↔ Google…), filled with the
 * default set. Changing it moves the catalog revision like a change to tools does, so every replica
 * rebuilds its search index and drops its cached pages.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.raw('DROP TABLE IF EXISTS tool_search');
  await db.raw(`CREATE TABLE search_aliases (
    term text NOT NULL CHECK (term <> ''),
    alias text NOT NULL CHECK (alias <> '' AND alias <> term),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (term, alias)
  )`);
  const rows = DEFAULT_SEARCH_ALIASES.flatMap(([term, ...aliases]) =>
    aliases.map((alias) => ({ term: normalizeSearchText(term!), alias: normalizeSearchText(alias) })),
  );
  await db('search_aliases').insert(rows).onConflict(['term', 'alias']).ignore();
  await db.raw(`CREATE TRIGGER search_aliases_catalog_revision
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE ON search_aliases
    FOR EACH STATEMENT EXECUTE FUNCTION bump_catalog_revision()`);
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('DROP TRIGGER IF EXISTS search_aliases_catalog_revision ON search_aliases');
  await db.raw('DROP TABLE IF EXISTS search_aliases');
  // The table as 20261123010000_tool_search made it; the search code of that time fills it at start.
  await db.schema.createTable('tool_search', (t) => {
    t.integer('tool_id').primary().references('id').inTable('tools').onDelete('CASCADE');
    t.smallint('version').notNullable();
    t.specificType('keys', 'text[]').notNullable();
    for (const column of ['raw', 'pinyin', 'forms', 'initials_forms', 'name_forms']) t.text(column).notNullable();
  });
  await db.raw('CREATE INDEX tool_search_keys_idx ON tool_search USING gin (keys) WITH (fastupdate = off)');
}
