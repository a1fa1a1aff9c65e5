import type { CatalogRepository, Category, Tool } from '../catalog/catalog-repository';
import { withoutCategorySlug } from '../catalog/catalog-repository';
import type { CategoryDetail, DirectoryService, SearchResult, SiteStats, ToolDetail } from '../catalog/directory-service';
import { inTreeOrder, subcategoriesOf } from '../catalog/category-parents';
import { notFound } from '../errors/app-error';
import { httpUrl } from './html';
import { createLocalizer } from './localize';
import type { SiteCache } from './site-cache';
import type { CategorySort, SiteQueries, Translations } from './site-queries';
import type { Lang } from './site-text';

export const CATEGORY_PAGE_SIZE = 24;
export const SEARCH_PAGE_SIZE = 20;
export const FEATURED_TOOLS = 8;
export const RELATED_TOOLS = 6;
/** Tools per category section on the home page (the rest are one click away on the category page). */
export const HOME_TOOLS_PER_CATEGORY = 12;
/** Length of the home page's 热门 and 最新 lists. */
export const HOME_LIST_SIZE = 10;
/** Tools per sitemap file: two URLs each (Chinese and English), under the 50,000 URLs a sitemap may hold. */
export const SITEMAP_TOOLS_PER_FILE = 20000;

export interface HomeData {
  categories: Category[];
  featured: Tool[];
  /** Visited tools only, most visited first: empty on a fresh install. */
  popular: Tool[];
  latest: Tool[];
  /** Each category's first tools (popular order), by category id. */
  sections: ReadonlyMap<number, Tool[]>;
  stats: SiteStats;
}

export interface CategoryPageData {
  /** The category and a page of its tools: a top-level category's page holds its subcategories' tools too. */
  detail: CategoryDetail;
  /** Every category, each top-level one followed by its subcategories. */
  categories: Category[];
  /** The parent of a subcategory. */
  parent: Category | undefined;
  subcategories: Category[];
  sort: CategorySort;
}

export interface TagPageData {
  tag: string;
  tools: Tool[];
  pagination: CategoryDetail['pagination'];
  sort: CategorySort;
}

export interface ToolPageData {
  tool: ToolDetail;
  related: Tool[];
}

export interface SitemapData {
  categories: Category[];
  toolFiles: number;
  /** Whether the home page, and which categories' pages, are in English (localize.ts). */
  homeEnglish: boolean;
  englishCategories: ReadonlySet<number>;
}

/**
 * The data of each website page, from the same directory service (and so the same search engine and
 * ranking) as the API, cached in `cache` (see site-cache.ts). `directory` must not cache on its own:
 * the site cache is the one that knows when the catalog changed.
 */
export function createSiteService(deps: {
  directory: DirectoryService;
  catalog: CatalogRepository;
  queries: SiteQueries;
  cache: SiteCache;
  /** slug -> version of the stored icons (icons/); none: every tool shows its letter avatar. */
  iconVersions?: () => Promise<ReadonlyMap<string, string>>;
}) {
  const { directory, catalog, queries, cache } = deps;
  const categories = () => cache.get('categories', async () => inTreeOrder(await directory.categories()));
  /** The English fields editors filled (see localize.ts). */
  const translations = (): Promise<Translations> => cache.get('translations', () => queries.translations());

  async function findCategory(reference: string): Promise<Category> {
    const all = await categories();
    const found = all.find((category) => category.slug === reference) ?? (/^\d{1,9}$/.test(reference) ? all.find((category) => category.id === Number(reference)) : undefined);
    if (!found) throw notFound();
    return found;
  }

  /** A tool by slug, then by id (as the API's detail), without counting a visit. */
  const toolPage = (reference: string): Promise<ToolPageData> =>
    cache.get(`tool:${reference}`, async () => {
      const tool = await directory.toolDetail(reference, { countVisit: false });
      const related = await catalog.relatedTools(tool, RELATED_TOOLS);
      return { tool, related: related.map(withoutCategorySlug) };
    });

  return {
    /** Which tools have a stored icon; cached like page data (a stored icon moves the catalog revision). */
    iconVersions(): Promise<ReadonlyMap<string, string>> {
      return deps.iconVersions ? cache.get('icon-versions', deps.iconVersions) : Promise.resolve(new Map());
    },

    home(): Promise<HomeData> {
      return cache.get('home', async () => {
        const [all, featured, popular, latest, tops, stats] = await Promise.all([
          categories(),
          catalog.featuredTools(FEATURED_TOOLS),
          queries.popularTools(HOME_LIST_SIZE),
          queries.latestTools(HOME_LIST_SIZE),
          queries.categoryTops(HOME_TOOLS_PER_CATEGORY),
          directory.stats(),
        ]);
        const sections = new Map<number, Tool[]>();
        for (const tool of tops) sections.set(tool.category_id, [...(sections.get(tool.category_id) ?? []), withoutCategorySlug(tool)]);
        return {
          categories: all,
          featured: featured.map(withoutCategorySlug),
          popular: popular.map(withoutCategorySlug),
          latest: latest.map(withoutCategorySlug),
          sections,
          stats,
        };
      });
    },

    /**
     * A category by slug or, when no slug matches and it is all digits, by id, in `sort` order; a page past
     * the end is a 404. The name order depends on the language (English names where filled).
     */
    async category(reference: string, page: number, sort: CategorySort, lang: Lang): Promise<CategoryPageData> {
      const category = await findCategory(reference);
      const all = await categories();
      const subcategories = subcategoriesOf(all, category.id);
      const ids = [category.id, ...subcategories.map((subcategory) => subcategory.id)];
      const limit = CATEGORY_PAGE_SIZE;
      const offset = (page - 1) * limit;
      const key = sort === 'name' ? `category:${category.id}:name:${lang}:${page}` : `category:${category.id}:${sort}:${page}`;
      const detail = await cache.get(key, async (): Promise<CategoryDetail> => {
        const tools =
          sort === 'name'
            ? await queries.toolsByIds((await cache.get(`names:${category.id}:${lang}`, () => queries.categoryIdsByName(ids, lang))).slice(offset, offset + limit))
            : await queries.categoryTools(ids, sort, offset, limit);
        const total = category.tool_count + subcategories.reduce((sum, subcategory) => sum + subcategory.tool_count, 0);
        return { category, data: tools.map(withoutCategorySlug), pagination: { page, limit, total, total_pages: Math.ceil(total / limit) } };
      });
      if (page > 1 && page > detail.pagination.total_pages) throw notFound();
      const parent = category.parent_id === null ? undefined : all.find((candidate) => candidate.id === category.parent_id);
      return { detail, categories: all, parent, subcategories, sort };
    },

    /** The tools carrying `tag`, in `sort` order; a tag no tool carries, or a page past the end, is a 404. */
    async tag(tag: string, page: number, sort: CategorySort, lang: Lang): Promise<TagPageData> {
      const limit = CATEGORY_PAGE_SIZE;
      const offset = (page - 1) * limit;
      const total = await cache.get(`tag-count:${tag}`, () => queries.tagToolCount(tag));
      const totalPages = Math.ceil(total / limit);
      if (total === 0 || page > totalPages) throw notFound();
      const key = sort === 'name' ? `tag:${tag}:name:${lang}:${page}` : `tag:${tag}:${sort}:${page}`;
      const tools = await cache.get(key, async () =>
        (sort === 'name'
          ? await queries.toolsByIds((await cache.get(`tag-names:${tag}:${lang}`, () => queries.tagIdsByName(tag, lang))).slice(offset, offset + limit))
          : await queries.tagTools(tag, sort, offset, limit)
        ).map(withoutCategorySlug),
      );
      return { tag, tools, pagination: { page, limit, total, total_pages: totalPages }, sort };
    },

    /** The English fields editors filled (see localize.ts). */
    translations,

    tool: toolPage,

    async search(keyword: string, page: number): Promise<SearchResult> {
      const result = await cache.get(`search:${page}:${keyword}`, () => directory.search({ keyword, page, limit: SEARCH_PAGE_SIZE }));
      if (page > 1 && page > result.total_pages) throw notFound();
      return result;
    },

    categories,

    /**
     * The address to send a visitor to, counting one visit when `count` (one atomic UPDATE … RETURNING).
     * A tool without an http(s) address has no link on its page, and none here.
     */
    async visit(reference: string, options: { count: boolean }): Promise<string> {
      const { tool } = await toolPage(reference);
      if (httpUrl(tool.url) === null) throw notFound();
      if (!options.count) return httpUrl(tool.url)!;
      const visited = await directory.toolDetail(reference, { countVisit: true });
      const target = httpUrl(visited.url);
      if (target === null) throw notFound();
      return target;
    },

    sitemap(): Promise<SitemapData> {
      return cache.get('sitemap', async () => {
        const [all, stats, english] = await Promise.all([categories(), directory.stats(), translations()]);
        const localize = createLocalizer('en', english);
        return {
          categories: all,
          toolFiles: Math.max(1, Math.ceil(stats.total_tools / SITEMAP_TOOLS_PER_FILE)),
          homeEnglish: localize.homeHasEnglish(all),
          englishCategories: new Set(all.filter(localize.categoryHasEnglish).map((category) => category.id)),
        };
      });
    },

    /** The tools of sitemap file `file` (1-based); a file past the end is a 404. */
    sitemapTools(file: number): Promise<{ slug: string; updated_at: string; english: boolean }[]> {
      return cache.get(`sitemap-tools:${file}`, async () => {
        const tools = await queries.sitemapTools((file - 1) * SITEMAP_TOOLS_PER_FILE, SITEMAP_TOOLS_PER_FILE);
        if (tools.length === 0 && file > 1) throw notFound();
        return tools;
      });
    },
  };
}

export type SiteService = ReturnType<typeof createSiteService>;
