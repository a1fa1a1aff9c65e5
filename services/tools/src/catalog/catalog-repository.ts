import type { Knex } from 'knex';

/** A tool as the API shows it (field names are the wire names, per DESIGN.md). */
export interface Tool {
  id: number;
  name: string;
  slug: string;
  description: string;
  url: string;
  icon: string;
  category_id: number;
  category_name: string;
  tags: string[];
  visits: number;
  is_featured: boolean;
  created_at: string;
  updated_at: string;
}

export interface Category {
  id: number;
  name: string;
  slug: string;
  description: string;
  icon: string;
  sort_order: number;
  tool_count: number;
}

export interface ToolWithCategorySlug extends Tool {
  category_slug: string;
}

interface DbToolRow {
  id: number;
  name: string;
  slug: string;
  description: string;
  url: string;
  icon: string;
  category_id: number;
  category_name: string;
  category_slug: string;
  tags: string[];
  visits: string | number;
  is_featured: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

const toolColumns = [
  't.id',
  't.name',
  't.slug',
  't.description',
  't.url',
  't.icon',
  't.category_id',
  'c.name as category_name',
  'c.slug as category_slug',
  't.tags',
  't.visits',
  't.is_featured',
  't.created_at',
  't.updated_at',
];

function toTool(row: DbToolRow): ToolWithCategorySlug {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    url: row.url,
    icon: row.icon,
    category_id: row.category_id,
    category_name: row.category_name,
    category_slug: row.category_slug,
    tags: row.tags ?? [],
    visits: Number(row.visits),
    is_featured: row.is_featured,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export function withoutCategorySlug(tool: ToolWithCategorySlug): Tool {
  const { category_slug: _ignored, ...rest } = tool;
  return rest;
}

/** LIKE pattern for a literal substring: `%`, `_` and `\` in user input match themselves. */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
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
  name_pinyin: string | null;
  name_initials: string | null;
  search_document: string;
}

function createCatalogQueries(db: Knex) {
  const toolsQuery = () => db('tools as t').join('categories as c', 'c.id', 't.category_id');

  return {
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

    async searchTools(needle: string, limit: number): Promise<{ tools: ToolWithCategorySlug[]; total: number }> {
      const pattern = likeContains(needle);
      const prefix = `${pattern.slice(1, -1)}%`;
      const rankSql = `CASE
           WHEN lower(t.name) = ? THEN 0
           WHEN lower(t.name) LIKE ? THEN 1
           WHEN lower(t.name) LIKE ? OR t.slug LIKE ? OR t.name_pinyin LIKE ? OR t.name_initials LIKE ? THEN 2
           WHEN EXISTS (SELECT 1 FROM unnest(t.tags) AS tag WHERE lower(tag) LIKE ?) THEN 3
           ELSE 4
         END`;
      const rankBindings = [needle, prefix, pattern, pattern, pattern, pattern, pattern];
      // One pass over the matches gives the page and the total (a keyword under three characters
      // cannot use the trigram index, so a second query would scan the table again).
      const rows: (DbToolRow & { total: string | number })[] = await toolsQuery()
        .select(toolColumns)
        .select(db.raw('count(*) OVER () AS total'))
        .where('t.search_document', 'like', pattern)
        .orderByRaw(`${rankSql}, t.visits DESC, t.id ASC`, rankBindings)
        .limit(limit);
      return { tools: rows.map(toTool), total: Number(rows[0]?.total ?? 0) };
    },

    async popularTools(limit: number): Promise<ToolWithCategorySlug[]> {
      const rows = await toolsQuery().select(toolColumns).orderBy([{ column: 't.visits', order: 'desc' }, { column: 't.id', order: 'asc' }]).limit(limit);
      return (rows as DbToolRow[]).map(toTool);
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
        .select('c.id', 'c.name', 'c.slug', 'c.description', 'c.icon', 'c.sort_order')
        .select(db.raw('(SELECT count(*) FROM tools t WHERE t.category_id = c.id) AS tool_count'))
        .orderBy([{ column: 'c.sort_order' }, { column: 'c.id' }]);
      return rows.map((row: Record<string, unknown>) => ({
        id: Number(row.id),
        name: String(row.name),
        slug: String(row.slug),
        description: String(row.description),
        icon: String(row.icon),
        sort_order: Number(row.sort_order),
        tool_count: Number(row.tool_count),
      }));
    },

    async findCategoryById(id: number): Promise<Omit<Category, 'tool_count'> | undefined> {
      return db('categories').select('id', 'name', 'slug', 'description', 'icon', 'sort_order').where({ id }).first();
    },

    async categoryIdsBySlug(): Promise<Map<string, number>> {
      const rows: { id: number; slug: string }[] = await db('categories').select('id', 'slug');
      return new Map(rows.map((row) => [row.slug, row.id]));
    },

    /** Insert or update by slug; a row that already holds these values is left alone (updated_at kept). */
    async upsertCategory(input: CategoryInput): Promise<UpsertOutcome> {
      const result = await db.raw<{ rows: { created: boolean }[] }>(
        `INSERT INTO categories (slug, name, description, icon, sort_order) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
           icon = EXCLUDED.icon, sort_order = EXCLUDED.sort_order, updated_at = now()
         WHERE (categories.name, categories.description, categories.icon, categories.sort_order)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.description, EXCLUDED.icon, EXCLUDED.sort_order)
         RETURNING (xmax = 0) AS created`,
        [input.slug, input.name, input.description, input.icon, input.sort_order],
      );
      return upsertOutcome(result.rows[0]);
    },

    async updateCategory(slug: string, patch: Partial<Omit<CategoryInput, 'slug'>>): Promise<boolean> {
      const count = await db('categories').where({ slug }).update({ ...patch, updated_at: db.fn.now() });
      return count > 0;
    },

    /** Insert or update by slug, keeping the visit count; a row that already holds these values is left alone. */
    async upsertTool(input: ToolUpsert): Promise<UpsertOutcome> {
      const result = await db.raw<{ rows: { created: boolean }[] }>(
        `INSERT INTO tools (slug, name, description, url, icon, category_id, tags, is_featured, name_pinyin, name_initials, search_document)
         VALUES (?, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?)
         ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, url = EXCLUDED.url,
           icon = EXCLUDED.icon, category_id = EXCLUDED.category_id, tags = EXCLUDED.tags, is_featured = EXCLUDED.is_featured,
           name_pinyin = EXCLUDED.name_pinyin, name_initials = EXCLUDED.name_initials,
           search_document = EXCLUDED.search_document, updated_at = now()
         WHERE (tools.name, tools.description, tools.url, tools.icon, tools.category_id, tools.tags, tools.is_featured,
                tools.name_pinyin, tools.name_initials, tools.search_document)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.description, EXCLUDED.url, EXCLUDED.icon, EXCLUDED.category_id, EXCLUDED.tags,
                EXCLUDED.is_featured, EXCLUDED.name_pinyin, EXCLUDED.name_initials, EXCLUDED.search_document)
         RETURNING (xmax = 0) AS created`,
        [
          input.slug,
          input.name,
          input.description,
          input.url,
          input.icon,
          input.category_id,
          input.tags,
          input.is_featured,
          input.name_pinyin,
          input.name_initials,
          input.search_document,
        ],
      );
      return upsertOutcome(result.rows[0]);
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
