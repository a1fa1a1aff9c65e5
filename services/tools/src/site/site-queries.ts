import type { Knex } from 'knex';
import { pinyin } from 'pinyin-pro';
import { toolColumns, toTool, type DbToolRow, type ToolWithCategorySlug } from '../catalog/tool-rows';
import type { Lang } from './site-text';

/** How a category page orders its tools (`?sort=`): most visited, newest, or by name. */
export type CategorySort = 'popular' | 'latest' | 'name';
export const CATEGORY_SORTS: readonly CategorySort[] = ['popular', 'latest', 'name'];

export interface English {
  name: string;
  description: string;
}

export interface CategoryEnglish extends English {
  /** How many of the category's tools have an English page (TOOL_HAS_ENGLISH). */
  englishTools: number;
}

/** The English fields editors filled, by id; a tool without any is absent. */
export interface Translations {
  tools: ReadonlyMap<number, English>;
  categories: ReadonlyMap<number, CategoryEnglish>;
}

/** A tool's page is in English when its description is, or it has none and its name is (localize.ts says the same). */
const TOOL_HAS_ENGLISH = "(t.description_en <> '' OR (t.description = '' AND t.name_en <> ''))";

// Ties broken the same way everywhere, so a page never shows a tool twice or skips one between pages.
const POPULAR_ORDER = 't.visits DESC, t.is_featured DESC, t.id ASC';
const LATEST_ORDER = 't.created_at DESC, t.id DESC';

// Names compared by their pinyin (微信 → "wei xin"), so Chinese and Latin names interleave as a reader expects.
const nameCollator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const sortKey = (name: string) => pinyin(name, { toneType: 'none', nonZh: 'consecutive' }).toLowerCase();

function byName(rows: { id: number; name: string; name_en: string }[], lang: Lang): number[] {
  const keyed = rows.map((row) => ({ id: row.id, key: sortKey(lang === 'en' && row.name_en ? row.name_en : row.name) }));
  return keyed.sort((a, b) => nameCollator.compare(a.key, b.key) || a.id - b.id).map((row) => row.id);
}

/** The website's own reads: orders and lists the directory API does not have (sorts, per-category tops, English). */
export function createSiteQueries(db: Knex) {
  const toolsQuery = () => db('tools as t').join('categories as c', 'c.id', 't.category_id').select(toolColumns);
  const asTools = (rows: unknown[]) => (rows as DbToolRow[]).map(toTool);

  return {
    /** The tools of these categories (a category and its subcategories), a page of them in `sort` order. */
    async categoryTools(categoryIds: number[], sort: 'popular' | 'latest', offset: number, limit: number): Promise<ToolWithCategorySlug[]> {
      const rows = await toolsQuery()
        .whereIn('t.category_id', categoryIds)
        .orderByRaw(sort === 'popular' ? POPULAR_ORDER : LATEST_ORDER)
        .offset(offset)
        .limit(limit);
      return asTools(rows);
    },

    /** The tool ids of these categories by name as shown in `lang` (the English name where filled on English pages). */
    async categoryIdsByName(categoryIds: number[], lang: Lang): Promise<number[]> {
      const rows: { id: number; name: string; name_en: string }[] = await db('tools').select('id', 'name', 'name_en').whereIn('category_id', categoryIds);
      return byName(rows, lang);
    },

    /** A page of the tools carrying `tag` (exactly as editors wrote it; the tags index answers `@>`), in `sort` order. */
    async tagTools(tag: string, sort: 'popular' | 'latest', offset: number, limit: number): Promise<ToolWithCategorySlug[]> {
      const rows = await toolsQuery().whereRaw('t.tags @> ARRAY[?]::text[]', [tag]).orderByRaw(sort === 'popular' ? POPULAR_ORDER : LATEST_ORDER).offset(offset).limit(limit);
      return asTools(rows);
    },

    async tagToolCount(tag: string): Promise<number> {
      const row = await db('tools as t').whereRaw('t.tags @> ARRAY[?]::text[]', [tag]).count<{ count: string }[]>({ count: '*' }).first();
      return Number(row?.count ?? 0);
    },

    /** The ids of the tools carrying `tag` by name as shown in `lang`. */
    async tagIdsByName(tag: string, lang: Lang): Promise<number[]> {
      const rows: { id: number; name: string; name_en: string }[] = await db('tools as t').select('t.id', 't.name', 't.name_en').whereRaw('t.tags @> ARRAY[?]::text[]', [tag]);
      return byName(rows, lang);
    },

    /** Tools by id, in the order of `ids`. */
    async toolsByIds(ids: number[]): Promise<ToolWithCategorySlug[]> {
      if (ids.length === 0) return [];
      const byId = new Map(asTools(await toolsQuery().whereIn('t.id', ids)).map((tool) => [tool.id, tool]));
      return ids.map((id) => byId.get(id)).filter((tool): tool is ToolWithCategorySlug => tool !== undefined);
    },

    /** Each category's first `perCategory` tools in the popular order (the home page's sections). */
    async categoryTops(perCategory: number): Promise<ToolWithCategorySlug[]> {
      const ranked = toolsQuery().select(db.raw(`row_number() OVER (PARTITION BY t.category_id ORDER BY ${POPULAR_ORDER}) AS place`));
      const rows = await db.select('*').from(ranked.as('ranked')).where('place', '<=', perCategory).orderBy(['category_id', 'place']);
      return asTools(rows);
    },

    /** The most visited tools; tools nobody visited yet are not "popular" and are left out. */
    async popularTools(limit: number): Promise<ToolWithCategorySlug[]> {
      return asTools(await toolsQuery().where('t.visits', '>', 0).orderByRaw(POPULAR_ORDER).limit(limit));
    },

    async latestTools(limit: number): Promise<ToolWithCategorySlug[]> {
      return asTools(await toolsQuery().orderByRaw(LATEST_ORDER).limit(limit));
    },

    async translations(): Promise<Translations> {
      const [tools, categories] = await Promise.all([
        db('tools').select('id', 'name_en', 'description_en').whereNot('name_en', '').orWhereNot('description_en', '') as Promise<
          { id: number; name_en: string; description_en: string }[]
        >,
        db('categories as c').select(
          'c.id',
          'c.name_en',
          'c.description_en',
          db.raw(`(SELECT count(*) FROM tools t WHERE t.category_id = c.id AND ${TOOL_HAS_ENGLISH}) AS english_tools`),
        ) as Promise<{ id: number; name_en: string; description_en: string; english_tools: string | number }[]>,
      ]);
      return {
        tools: new Map(tools.map((row) => [row.id, { name: row.name_en, description: row.description_en }])),
        categories: new Map(
          categories.map((row) => [row.id, { name: row.name_en, description: row.description_en, englishTools: Number(row.english_tools) }]),
        ),
      };
    },

    /** Slugs, last changes and whether the page is in English, of tools in id order, a slice at a time (the sitemap). */
    async sitemapTools(offset: number, limit: number): Promise<{ slug: string; updated_at: string; english: boolean }[]> {
      const rows: { slug: string; updated_at: Date | string; english: boolean }[] = await db('tools as t')
        .select('t.slug', 't.updated_at', db.raw(`${TOOL_HAS_ENGLISH} AS english`))
        .orderBy('t.id')
        .offset(offset)
        .limit(limit);
      return rows.map((row) => ({ slug: row.slug, updated_at: new Date(row.updated_at).toISOString(), english: row.english }));
    },
  };
}

export type SiteQueries = ReturnType<typeof createSiteQueries>;
