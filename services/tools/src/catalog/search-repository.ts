import type { Knex } from 'knex';
import type { SearchSnapshot } from './search-engine';
import { toolColumns, toTool, type DbToolRow, type ToolWithCategorySlug } from './tool-rows';

/** What search reads from the database: the catalog for the in-memory index (search-engine.ts), and the tools found. */
export function createSearchQueries(db: Knex) {
  return {
    /**
     * Everything the in-memory search index is built from, read in one snapshot so that the revision
     * returned is the one of these rows (a write committed meanwhile moves it, and the next search rebuilds).
     */
    async searchSnapshot(): Promise<SearchSnapshot> {
      return db.transaction(async (trx) => {
        await trx.raw('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        const revision: { revision: string | number } | undefined = await trx('catalog_revision').select('revision').where({ id: 1 }).first();
        const tools: { id: number; name: string; slug: string; tags: string[] | null; description: string; category_name: string; is_featured: boolean; visits: string | number }[] =
          await trx('tools as t')
            .join('categories as c', 'c.id', 't.category_id')
            .select('t.id', 't.name', 't.slug', 't.tags', 't.description', 'c.name as category_name', 't.is_featured', 't.visits')
            .orderBy('t.id');
        const aliases: { term: string; alias: string }[] = await trx('search_aliases').select('term', 'alias').orderBy(['term', 'alias']);
        return {
          revision: Number(revision?.revision ?? 0),
          tools: tools.map((row) => ({
            id: row.id,
            name: row.name,
            slug: row.slug,
            tags: row.tags ?? [],
            description: row.description,
            categoryName: row.category_name,
            featured: row.is_featured,
            visits: Number(row.visits),
          })),
          aliases,
        };
      });
    },

    /** Visit counts, which move without a catalog revision. */
    async toolVisits(): Promise<Map<number, number>> {
      const rows: { id: number; visits: string | number }[] = await db('tools').select('id', 'visits');
      return new Map(rows.map((row) => [row.id, Number(row.visits)]));
    },

    /** The tools with these ids, in the order given (a tool deleted since the index was built is left out). */
    async toolsByIds(ids: number[]): Promise<ToolWithCategorySlug[]> {
      if (ids.length === 0) return [];
      const rows: DbToolRow[] = await db('tools as t').join('categories as c', 'c.id', 't.category_id').select(toolColumns).whereIn('t.id', ids);
      const byId = new Map(rows.map((row) => [row.id, toTool(row)]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
  };
}

export type SearchQueries = ReturnType<typeof createSearchQueries>;
