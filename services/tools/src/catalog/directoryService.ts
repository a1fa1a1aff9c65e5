import type { CatalogRepository, Category, Tool } from './catalogRepository';
import { withoutCategorySlug } from './catalogRepository';
import type { SettingsRepository } from '../ads/settingsRepository';
import { adsConfigSchema, DISABLED_ADS_CONFIG, type AdsConfig } from '../ads/adsConfig';
import { badParameter, notFound } from '../http/appError';
import { limitParam, MAX_DB_INT, optionalString, pageParams, positiveIntParam, type RawQuery } from '../http/queryParams';
import { createTtlCache } from './ttlCache';

export const TOOLS_DEFAULT_LIMIT = 20;
export const TOOLS_MAX_LIMIT = 100;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 50;
export const POPULAR_TOOLS = 10;
/** Longest search keyword accepted; longer input is a 400, not a slow query. */
export const MAX_QUERY_LENGTH = 100;
const MAX_SLUG_LENGTH = 100;
export const ADS_SETTING_KEY = 'miniapp_ads';

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
  limit: number;
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

// C0 controls (NUL included) and lone surrogates cannot be meaningful in a keyword or slug, and NUL cannot be stored in Postgres text.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, total_pages: Math.ceil(total / limit) };
}

export interface DirectoryServiceOptions {
  catalog: CatalogRepository;
  settings: SettingsRepository;
  /** How long stats and the category list may be served from memory (0 = always fresh). */
  cacheTtlMs: number;
  now?: () => number;
}

export function createDirectoryService(options: DirectoryServiceOptions) {
  const { catalog, settings } = options;
  const cache = createTtlCache(options.cacheTtlMs, options.now ?? Date.now);

  /** A list page and its total. The total is an aggregate like stats: counting every tool per request would scan them all. */
  async function toolPage(categoryId: number | undefined, page: number, limit: number) {
    const [tools, total] = await Promise.all([
      catalog.listTools({ categoryId }, (page - 1) * limit, limit),
      cache.get(`tool-count:${categoryId ?? 'all'}`, () => catalog.countTools({ categoryId })),
    ]);
    return { tools, total };
  }

  return {
    async listTools(query: RawQuery): Promise<ToolPage> {
      const { page, limit } = pageParams(query, TOOLS_DEFAULT_LIMIT, TOOLS_MAX_LIMIT);
      const categoryIdRaw = optionalString(query, 'category_id');
      // At most 9 digits (positiveIntParam), so always within Postgres integer range.
      const categoryId = categoryIdRaw === undefined ? undefined : positiveIntParam(query, 'category_id', 0);
      const { tools, total } = await toolPage(categoryId, page, limit);
      return { data: tools.map(withoutCategorySlug), pagination: pagination(page, limit, total) };
    },

    /** `countVisit` is false for HEAD: a link checker's or monitor's HEAD is not a visit. */
    async toolDetail(query: RawQuery, options: { countVisit: boolean }): Promise<ToolDetail> {
      const slug = optionalString(query, 'slug');
      if (slug === undefined || slug.trim() === '') throw badParameter('slug 不能为空');
      if (slug.length > MAX_SLUG_LENGTH || CONTROL_CHARACTERS.test(slug) || LONE_SURROGATE.test(slug)) throw notFound();
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

    async search(query: RawQuery): Promise<SearchResult> {
      const raw = optionalString(query, 'q');
      if (raw === undefined || raw.trim() === '') throw badParameter('q 不能为空');
      const keyword = raw.trim();
      if ([...keyword].length > MAX_QUERY_LENGTH) throw badParameter(`q 长度不能超过 ${MAX_QUERY_LENGTH} 个字符`);
      if (CONTROL_CHARACTERS.test(keyword) || LONE_SURROGATE.test(keyword)) throw badParameter('q 包含非法字符');
      const limit = limitParam(query, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT);
      const { tools, total } = await catalog.searchTools(keyword.toLowerCase(), limit);
      return { data: tools.map(withoutCategorySlug), total, limit };
    },

    async categories(): Promise<Category[]> {
      return cache.get('categories', () => catalog.listCategories());
    },

    async categoryDetail(query: RawQuery): Promise<CategoryDetail> {
      const idRaw = optionalString(query, 'id');
      if (idRaw === undefined || idRaw === '') throw badParameter('id 不能为空');
      const id = positiveIntParam(query, 'id', 0);
      const { page, limit } = pageParams(query, TOOLS_DEFAULT_LIMIT, TOOLS_MAX_LIMIT);
      const category = await catalog.findCategoryById(id);
      if (!category) throw notFound();
      const { tools, total } = await toolPage(id, page, limit);
      return {
        category: { ...category, tool_count: total },
        data: tools.map(withoutCategorySlug),
        pagination: pagination(page, limit, total),
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

    async miniapp(query: RawQuery): Promise<AdsConfig> {
      const type = optionalString(query, 'type');
      if (type === undefined || type === '') throw badParameter('type 不能为空');
      if (type !== 'ads') throw badParameter('type 只支持 ads');
      const stored = await settings.get(ADS_SETTING_KEY);
      if (stored === undefined) return DISABLED_ADS_CONFIG;
      const parsed = adsConfigSchema.safeParse(stored);
      // A stored value is validated when set; should it ever not parse, serving "all disabled" is the safe answer.
      return parsed.success ? parsed.data : DISABLED_ADS_CONFIG;
    },
  };
}

export type DirectoryService = ReturnType<typeof createDirectoryService>;
