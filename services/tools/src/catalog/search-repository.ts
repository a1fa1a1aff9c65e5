import type { Knex } from 'knex';
import type { SearchSnapshot } from './search-engine';
import { toolColumns, toTool, type DbToolRow, type ToolWithCategorySlug } from './tool-rows';

/** Tools read per query of a snapshot. */
const SNAPSHOT_PAGE = 500;

/** What search reads from the database: the catalog for the in-memory index (search-engine.ts), and the tools found. */
export function createSearchQueries(db: Knex) {
  return {
    /**
     * Everything the in-memory search index is built from. The revision is read first, then the tools in
     * pages of SNAPSHOT_PAGE by id, each page its own short query: the embedded database's single connection
     * is free between them for the pages and the API (one transaction over 10,000 rows would hold it). Rows
     * are at least as new as the revision returned; a write committed meanwhile moves the revision past it,
     * so the next search rebuilds.
     */
    async searchSnapshot(): Promise<SearchSnapshot> {
      const revision: { revision: string | number } | undefined = await db('catalog_revision').select('revision').where({ id: 1 }).first();
      const tools: SearchSnapshot['tools'] = [];
      for (let after = 0; ; ) {
        const rows: { id: number; name: string; slug: string; tags: string[] | null; description: string; category_name: string; is_featured: boolean; visits: string | number }[] =
          await db('tools as t')
            .join('categories as c', 'c.id', 't.category_id')
            .select('t.id', 't.name', 't.slug', 't.tags', 't.description', 'c.name as category_name', 't.is_featured', 't.visits')
            .where('t.id', '>', after)
            .orderBy('t.id')
            .limit(SNAPSHOT_PAGE);
        for (const row of rows) {
          tools.push({
            id: row.id,
            name: row.name,
            slug: row.slug,
            tags: row.tags ?? [],
            description: row.description,
            categoryName: row.category_name,
            featured: row.is_featured,
            visits: Number(row.visits),
          });
        }
        if (rows.length < SNAPSHOT_PAGE) break;
        after = rows.at(-1)!.id;
      }
      const aliases: { term: string; alias: string }[] = await db('search_aliases').select('term', 'alias').orderBy(['term', 'alias']);
      return { revision: Number(revision?.revision ?? 0), tools, aliases };
    },

    /**
     * Visit counts, which move without a catalog revision, in pages of SNAPSHOT_PAGE by id like the
     * snapshot, with `pause` between pages. The refresh runs beside searches every SEARCH_VISITS_REFRESH_MS:
     * read in one query, 10,000 tools' rows were parsed in one go, 10–15 ms of the main thread that the
     * searches arriving meanwhile waited for (docs/benchmarks.md, issue 39's fifth pass).
     */
    async toolVisits(pause: () => Promise<void>): Promise<Map<number, number>> {
      const visits = new Map<number, number>();
      for (let after = 0; ; ) {
        const rows: { id: number; visits: string | number }[] = await db('tools').select('id', 'visits').where('id', '>', after).orderBy('id').limit(SNAPSHOT_PAGE);
        for (const row of rows) visits.set(row.id, Number(row.visits));
        if (rows.length < SNAPSHOT_PAGE) return visits;
        after = rows.at(-1)!.id;
        await pause();
      }
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
