import { notFound } from '../errors/app-error';
import type { CatalogRepository, Category, Tool } from './catalog-repository';
import { withoutCategorySlug } from './catalog-repository';
import { createSearchEngine, SEARCH_VISITS_REFRESH_MS, type SearchEngine, type SearchMatch } from './search-engine';
import { createTtlCache } from './ttl-cache';

export const POPULAR_TOOLS = 10;
const MAX_SLUG_LENGTH = 100;
/** Largest value of a Postgres `integer` column: ids above it cannot exist (and must not reach SQL). */
const MAX_DB_INT = 2147483647;
const UNUSABLE_IN_SLUG = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}

export interface ToolPage {
  data: Tool[];
  pagination: Pagination;
}

export interface ToolDetail extends Tool {
  category: { id: number; name: string; slug: string };
}

export interface SearchResult {
  data: Tool[];
  total: number;
  page: number;
  limit: number;
  total_pages: number;
  /** Extension field (not in the seed's answer): how the keyword was read, see SearchMatch. */
  match: SearchMatch;
}

export interface CategoryDetail extends ToolPage {
  category: Category;
}

export interface SiteStats {
  total_tools: number;
  total_categories: number;
  total_visits: number;
  popular_tools: Tool[];
}

function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, total_pages: Math.ceil(total / limit) };
}

export interface DirectoryServiceOptions {
  catalog: CatalogRepository;
  /** How long stats, the category list and list totals may be served from memory (0 = always fresh). */
  cacheTtlMs: number;
  /** How long a list page or a search result may be served from memory (0 = always fresh). */
  readCacheTtlMs?: number;
  /** The catalog revision this process knows: cached answers from an older one are not served. */
  revision?: () => Promise<number>;
  now: () => number;
  /** Shared by the directory services of one process (one in-memory index); one is made when absent. */
  searchEngine?: SearchEngine;
}

/** The search engine over a catalog repository (see search-engine.ts); `knownRevision`: the process's revision watch. */
export function catalogSearchEngine(
  catalog: CatalogRepository,
  now: () => number,
  options: { onBuilt?: (seconds: number) => void; pause?: () => Promise<void>; knownRevision?: () => Promise<number> } = {},
): SearchEngine {
  return createSearchEngine({
    ...options,
    readRevision: catalog.catalogRevision,
    loadSnapshot: catalog.searchSnapshot,
    loadVisits: catalog.toolVisits,
    visitsRefreshMs: SEARCH_VISITS_REFRESH_MS,
    now,
  });
}

/** The read operations of the directory API, on typed input (the routes parse the request). */
export function createDirectoryService(options: DirectoryServiceOptions) {
  const { catalog } = options;
  const cache = createTtlCache(options.cacheTtlMs, options.now, undefined, options.revision);
  // Pages and results are what every list or search request asks for; a short TTL takes the database
  // off the hot path (a tool's visits in a list may lag by that much, as totals do by cacheTtlMs).
  const reads = createTtlCache(options.readCacheTtlMs ?? 0, options.now, undefined, options.revision);
  const engine = options.searchEngine ?? catalogSearchEngine(catalog, options.now);

  /** A list page and its total. The total is an aggregate like stats: counting every tool per request would scan them all. */
  async function toolPage(categoryId: number | undefined, page: number, limit: number) {
    const [tools, total] = await Promise.all([
      catalog.listTools({ categoryId }, (page - 1) * limit, limit),
      cache.get(`tool-count:${categoryId ?? 'all'}`, () => catalog.countTools({ categoryId })),
    ]);
    return { tools, total };
  }

  return {
    listTools(request: { page: number; limit: number; categoryId?: number }): Promise<ToolPage> {
      return reads.get(`tools:${request.categoryId ?? 'all'}:${request.page}:${request.limit}`, async () => {
        const { tools, total } = await toolPage(request.categoryId, request.page, request.limit);
        return { data: tools.map(withoutCategorySlug), pagination: pagination(request.page, request.limit, total) };
      });
    },

    /**
     * By slug, then (when all digits) by id. `countVisit` is false for HEAD: a link checker's or
     * monitor's HEAD is not a visit. A slug that cannot exist is a 404 without a query.
     */
    async toolDetail(slug: string, options: { countVisit: boolean }): Promise<ToolDetail> {
      if (slug.length > MAX_SLUG_LENGTH || UNUSABLE_IN_SLUG.test(slug)) throw notFound();
      const read = options.countVisit ? catalog.recordVisit : catalog.findTool;
      let tool = await read({ slug });
      if (!tool && /^\d{1,10}$/.test(slug) && Number(slug) >= 1 && Number(slug) <= MAX_DB_INT) {
        tool = await read({ id: Number(slug) });
      }
      if (!tool) throw notFound();
      return {
        ...withoutCategorySlug(tool),
        category: { id: tool.category_id, name: tool.category_name, slug: tool.category_slug },
      };
    },

    /** Every word of the keyword must match, or as many as any tool does (see search-terms.ts); `total` counts every match. */
    search(request: { keyword: string; page: number; limit: number }): Promise<SearchResult> {
      return reads.get(`search:${request.page}:${request.limit}:${request.keyword}`, async () => {
        const hits = await engine.search(request.keyword, (request.page - 1) * request.limit, request.limit);
        const tools = await catalog.toolsByIds(hits.ids);
        const total = hits.total;
        return {
          data: tools.map(withoutCategorySlug),
          total,
          page: request.page,
          limit: request.limit,
          total_pages: Math.ceil(total / request.limit),
          match: hits.match,
        };
      });
    },

    async categories(): Promise<Category[]> {
      return cache.get('categories', () => catalog.listCategories());
    },

    async categoryDetail(request: { id: number; page: number; limit: number }): Promise<CategoryDetail> {
      const category = await catalog.findCategoryById(request.id);
      if (!category) throw notFound();
      const { tools, total } = await toolPage(request.id, request.page, request.limit);
      return {
        category: { ...category, tool_count: total },
        data: tools.map(withoutCategorySlug),
        pagination: pagination(request.page, request.limit, total),
      };
    },

    async stats(): Promise<SiteStats> {
      return cache.get('stats', async () => {
        const [totals, popular] = await Promise.all([catalog.totals(), catalog.popularTools(POPULAR_TOOLS)]);
        return {
          total_tools: totals.totalTools,
          total_categories: totals.totalCategories,
          total_visits: totals.totalVisits,
          popular_tools: popular.map(withoutCategorySlug),
        };
      });
    },
  };
}

export type DirectoryService = ReturnType<typeof createDirectoryService>;
