import type { Knex } from 'knex';
import { toolColumns, toTool, type DbToolRow, type ToolWithCategorySlug } from './tool-rows';
import { createSearchQueries } from './search-repository';

export type { Tool, ToolWithCategorySlug } from './tool-rows';
export { withoutCategorySlug } from './tool-rows';

export interface Category {
  id: number;
  name: string;
  slug: string;
  description: string;
  icon: string;
  sort_order: number;
  /** The parent of a subcategory; null for a top-level category (two levels only, see category-parents.ts). */
  parent_id: number | null;
  tool_count: number;
}

/** Any constant: the advisory lock of category tree changes (lockCategoryTree). */
const CATEGORY_TREE_LOCK = 4_102_731;

/** A category's place in the tree. */
export interface CategoryLevel {
  id: number;
  parentId: number | null;
  /** How many subcategories it has. */
  children: number;
}

export interface ToolFilter {
  categoryId?: number;
}

/** What an upsert did: no row comes back when the conflict's WHERE found nothing to change. */
export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

function upsertOutcome(row: { created: boolean } | undefined): UpsertOutcome {
  if (!row) return 'unchanged';
  return row.created ? 'created' : 'updated';
}

export interface CategoryInput {
  slug: string;
  name: string;
  description: string;
  icon: string;
  sort_order: number;
  name_en: string;
  description_en: string;
  parent_id: number | null;
}

export interface ToolUpsert {
  slug: string;
  name: string;
  description: string;
  url: string;
  icon: string;
  category_id: number;
  tags: string[];
  is_featured: boolean;
  name_en: string;
  description_en: string;
}

function createCatalogQueries(db: Knex) {
  const toolsQuery = () => db('tools as t').join('categories as c', 'c.id', 't.category_id');

  return {
    ...createSearchQueries(db),

    async listTools(filter: ToolFilter, offset: number, limit: number): Promise<ToolWithCategorySlug[]> {
      const query = toolsQuery().select(toolColumns);
      if (filter.categoryId !== undefined) query.where('t.category_id', filter.categoryId);
      const rows = await query.orderBy('t.id').offset(offset).limit(limit);
      return (rows as DbToolRow[]).map(toTool);
    },

    async countTools(filter: ToolFilter = {}): Promise<number> {
      const query = db('tools');
      if (filter.categoryId !== undefined) query.where('category_id', filter.categoryId);
      const row = await query.count<{ count: string }[]>({ count: '*' }).first();
      return Number(row?.count ?? 0);
    },

    /** Adds one visit and returns the tool, atomically (a single UPDATE … RETURNING). */
    async recordVisit(by: { slug: string } | { id: number }): Promise<ToolWithCategorySlug | undefined> {
      const condition = 'slug' in by ? { column: 'slug', value: by.slug } : { column: 'id', value: by.id };
      const result = await db.raw<{ rows: DbToolRow[] }>(
        `WITH t AS (UPDATE tools SET visits = visits + 1 WHERE ?? = ? RETURNING *)
         SELECT ${toolColumns.map((c) => c.replace(/ as /, ' AS ')).join(', ')}
         FROM t JOIN categories c ON c.id = t.category_id`,
        [condition.column, condition.value],
      );
      const row = result.rows[0];
      return row ? toTool(row) : undefined;
    },

    /** The tool without counting a visit (HEAD requests). */
    async findTool(by: { slug: string } | { id: number }): Promise<ToolWithCategorySlug | undefined> {
      const row = await toolsQuery()
        .select(toolColumns)
        .where('slug' in by ? { 't.slug': by.slug } : { 't.id': by.id })
        .first();
      return row ? toTool(row as DbToolRow) : undefined;
    },

    async popularTools(limit: number): Promise<ToolWithCategorySlug[]> {
      const rows = await toolsQuery().select(toolColumns).orderBy([{ column: 't.visits', order: 'desc' }, { column: 't.id', order: 'asc' }]).limit(limit);
      return (rows as DbToolRow[]).map(toTool);
    },

    /** Featured tools, most visited first (the website's home page). */
    async featuredTools(limit: number): Promise<ToolWithCategorySlug[]> {
      const rows = await toolsQuery()
        .select(toolColumns)
        .where('t.is_featured', true)
        .orderBy([{ column: 't.visits', order: 'desc' }, { column: 't.id', order: 'asc' }])
        .limit(limit);
      return (rows as DbToolRow[]).map(toTool);
    },

    /**
     * Tools of the same category as `tool`, those sharing the most tags first, then featured, then most
     * visited (a tool page's "related tools"). Read through the category index: one category's tools.
     */
    async relatedTools(tool: { id: number; category_id: number; tags: string[] }, limit: number): Promise<ToolWithCategorySlug[]> {
      const rows = await toolsQuery()
        .select(toolColumns)
        .where('t.category_id', tool.category_id)
        .whereNot('t.id', tool.id)
        .orderByRaw('cardinality(ARRAY(SELECT unnest(t.tags) INTERSECT SELECT unnest(?::text[]))) DESC', [tool.tags])
        .orderBy([{ column: 't.is_featured', order: 'desc' }, { column: 't.visits', order: 'desc' }, { column: 't.id', order: 'asc' }])
        .limit(limit);
      return (rows as DbToolRow[]).map(toTool);
    },

    /** Slugs and last changes of tools in id order, a slice at a time (the website's sitemap). */
    async toolSlugs(offset: number, limit: number): Promise<{ slug: string; updated_at: string }[]> {
      const rows: { slug: string; updated_at: Date | string }[] = await db('tools').select('slug', 'updated_at').orderBy('id').offset(offset).limit(limit);
      return rows.map((row) => ({ slug: row.slug, updated_at: new Date(row.updated_at).toISOString() }));
    },

    /** Moves whenever a tool or category changes (not on visits): see the catalog_revision migration. */
    async catalogRevision(): Promise<number> {
      const row: { revision: string | number } | undefined = await db('catalog_revision').select('revision').where({ id: 1 }).first();
      return Number(row?.revision ?? 0);
    },

    async totals(): Promise<{ totalTools: number; totalCategories: number; totalVisits: number }> {
      const row = await db
        .select(
          db.raw('(SELECT count(*) FROM tools) AS total_tools'),
          db.raw('(SELECT count(*) FROM categories) AS total_categories'),
          db.raw('(SELECT coalesce(sum(visits), 0) FROM tools) AS total_visits'),
        )
        .first();
      return { totalTools: Number(row.total_tools), totalCategories: Number(row.total_categories), totalVisits: Number(row.total_visits) };
    },

    async listCategories(): Promise<Category[]> {
      const rows = await db('categories as c')
        .select('c.id', 'c.name', 'c.slug', 'c.description', 'c.icon', 'c.sort_order', 'c.parent_id')
        .select(db.raw('(SELECT count(*) FROM tools t WHERE t.category_id = c.id) AS tool_count'))
        .orderBy([{ column: 'c.sort_order' }, { column: 'c.id' }]);
      return rows.map((row: Record<string, unknown>) => ({
        id: Number(row.id),
        name: String(row.name),
        slug: String(row.slug),
        description: String(row.description),
        icon: String(row.icon),
        sort_order: Number(row.sort_order),
        parent_id: row.parent_id === null || row.parent_id === undefined ? null : Number(row.parent_id),
        tool_count: Number(row.tool_count),
      }));
    },

    async findCategoryById(id: number): Promise<Omit<Category, 'tool_count'> | undefined> {
      return db('categories').select('id', 'name', 'slug', 'description', 'icon', 'sort_order', 'parent_id').where({ id }).first();
    },

    /**
     * Serialises changes to the category tree until the transaction ends: two saves checked at the same time
     * could otherwise each see the other's category still top-level and make a chain (or a cycle) of them.
     */
    async lockCategoryTree(): Promise<void> {
      await db.raw('SELECT pg_advisory_xact_lock(?)', [CATEGORY_TREE_LOCK]);
    },

    /** Every category's place in the tree, by slug (the parent rules of category-parents.ts read it). */
    async categoryLevels(): Promise<Map<string, CategoryLevel>> {
      const rows: { id: number; slug: string; parent_id: number | null; children: string | number }[] = await db('categories as c').select(
        'c.id',
        'c.slug',
        'c.parent_id',
        db.raw('(SELECT count(*) FROM categories s WHERE s.parent_id = c.id) AS children'),
      );
      return new Map(rows.map((row) => [row.slug, { id: row.id, parentId: row.parent_id, children: Number(row.children) }]));
    },

    async categoryIdsBySlug(): Promise<Map<string, number>> {
      const rows: { id: number; slug: string }[] = await db('categories').select('id', 'slug');
      return new Map(rows.map((row) => [row.slug, row.id]));
    },

    /** Insert or update by slug; a row that already holds these values is left alone (updated_at kept). */
    async upsertCategory(input: CategoryInput): Promise<UpsertOutcome> {
      const result = await db.raw<{ rows: { created: boolean }[] }>(
        `INSERT INTO categories (slug, name, description, icon, sort_order, name_en, description_en, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
           icon = EXCLUDED.icon, sort_order = EXCLUDED.sort_order, name_en = EXCLUDED.name_en,
           description_en = EXCLUDED.description_en, parent_id = EXCLUDED.parent_id, updated_at = now()
         WHERE (categories.name, categories.description, categories.icon, categories.sort_order, categories.name_en, categories.description_en, categories.parent_id)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.description, EXCLUDED.icon, EXCLUDED.sort_order, EXCLUDED.name_en, EXCLUDED.description_en, EXCLUDED.parent_id)
         RETURNING (xmax = 0) AS created`,
        [input.slug, input.name, input.description, input.icon, input.sort_order, input.name_en, input.description_en, input.parent_id],
      );
      return upsertOutcome(result.rows[0]);
    },

    /** The category's id, or undefined when no category has this slug. */
    async updateCategory(slug: string, patch: Partial<Omit<CategoryInput, 'slug'>>): Promise<number | undefined> {
      const rows: { id: number }[] = await db('categories').where({ slug }).update({ ...patch, updated_at: db.fn.now() }, ['id']);
      return rows[0]?.id;
    },

    /**
     * Insert or update by slug, keeping the visit count; a row that already holds these values is left alone.
     * Any change moves the catalog revision (a trigger), so search indexes rebuild with it.
     */
    async upsertTool(input: ToolUpsert): Promise<UpsertOutcome> {
      const result = await db.raw<{ rows: { created: boolean }[] }>(
        `INSERT INTO tools (slug, name, description, url, icon, category_id, tags, is_featured, name_en, description_en)
         VALUES (?, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?)
         ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, url = EXCLUDED.url,
           icon = EXCLUDED.icon, category_id = EXCLUDED.category_id, tags = EXCLUDED.tags, is_featured = EXCLUDED.is_featured,
           name_en = EXCLUDED.name_en, description_en = EXCLUDED.description_en, updated_at = now()
         WHERE (tools.name, tools.description, tools.url, tools.icon, tools.category_id, tools.tags, tools.is_featured, tools.name_en,
                tools.description_en)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.description, EXCLUDED.url, EXCLUDED.icon, EXCLUDED.category_id, EXCLUDED.tags,
                EXCLUDED.is_featured, EXCLUDED.name_en, EXCLUDED.description_en)
         RETURNING (xmax = 0) AS created`,
        [input.slug, input.name, input.description, input.url, input.icon, input.category_id, input.tags, input.is_featured, input.name_en, input.description_en],
      );
      return upsertOutcome(result.rows[0]);
    },

    /** What a dry run compares an import's categories with. */
    async categoriesForImport(): Promise<Map<string, CategoryInput>> {
      const rows: CategoryInput[] = await db('categories').select('slug', 'name', 'description', 'icon', 'sort_order', 'name_en', 'description_en', 'parent_id');
      return new Map(rows.map((row) => [row.slug, row]));
    },

    /** What a dry run compares a batch of imported tools with: the stored tools of these slugs. */
    async toolsForImport(slugs: string[]): Promise<Map<string, Omit<ToolUpsert, 'category_id'> & { category: string; sort_order: number }>> {
      if (slugs.length === 0) return new Map();
      const rows: (Omit<ToolUpsert, 'category_id'> & { category: string; sort_order: number })[] = await db('tools as t')
        .join('categories as c', 'c.id', 't.category_id')
        .select('t.slug', 't.name', 't.description', 't.url', 't.icon', 'c.slug as category', 't.tags', 't.is_featured', 't.name_en', 't.description_en', 't.sort_order')
        .whereIn('t.slug', slugs);
      return new Map(rows.map((row) => [row.slug, row]));
    },

    /**
     * upsertTool for many rows in one statement (an import's batch): the outcome of each slug, absent = unchanged.
     * `sort_order` null keeps a tool's order (0 for a new one). Slugs must be distinct within the batch; new tools
     * get their ids in the batch's order (an export lists them that way again).
     */
    async upsertToolBatch(inputs: (ToolUpsert & { sort_order: number | null })[]): Promise<Map<string, UpsertOutcome>> {
      if (inputs.length === 0) return new Map();
      const values = inputs.map(() => '(?::integer, ?, ?, ?, ?, ?, ?::bigint, ?::text[], ?::boolean, ?, ?, ?::integer)').join(', ');
      const bindings = inputs.flatMap((input, position) => [
        position, input.slug, input.name, input.description, input.url, input.icon, input.category_id, input.tags, input.is_featured,
        input.name_en, input.description_en, input.sort_order,
      ]);
      const result = await db.raw<{ rows: { slug: string; created: boolean }[] }>(
        `INSERT INTO tools AS t (slug, name, description, url, icon, category_id, tags, is_featured, name_en, description_en, sort_order)
         SELECT v.slug, v.name, v.description, v.url, v.icon, v.category_id, v.tags, v.is_featured, v.name_en, v.description_en,
                coalesce(v.sort_order, old.sort_order, 0)
         FROM (VALUES ${values}) AS v (position, slug, name, description, url, icon, category_id, tags, is_featured, name_en, description_en, sort_order)
         LEFT JOIN tools old ON old.slug = v.slug
         ORDER BY v.position
         ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, url = EXCLUDED.url,
           icon = EXCLUDED.icon, category_id = EXCLUDED.category_id, tags = EXCLUDED.tags, is_featured = EXCLUDED.is_featured,
           name_en = EXCLUDED.name_en, description_en = EXCLUDED.description_en, sort_order = EXCLUDED.sort_order, updated_at = now()
         WHERE (t.name, t.description, t.url, t.icon, t.category_id, t.tags, t.is_featured, t.name_en, t.description_en, t.sort_order)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.description, EXCLUDED.url, EXCLUDED.icon, EXCLUDED.category_id, EXCLUDED.tags,
                EXCLUDED.is_featured, EXCLUDED.name_en, EXCLUDED.description_en, EXCLUDED.sort_order)
         RETURNING t.slug, (t.xmax = 0) AS created`,
        bindings,
      );
      return new Map(result.rows.map((row) => [row.slug, row.created ? 'created' : 'updated'] as const));
    },
  };
}

export type CatalogQueries = ReturnType<typeof createCatalogQueries>;

export function createCatalogRepository(db: Knex) {
  return {
    ...createCatalogQueries(db),
    /** Runs `work` with the same queries bound to one transaction. */
    async transaction<T>(work: (queries: CatalogQueries) => Promise<T>): Promise<T> {
      return db.transaction((trx) => work(createCatalogQueries(trx)));
    },
  };
}

export type CatalogRepository = ReturnType<typeof createCatalogRepository>;
