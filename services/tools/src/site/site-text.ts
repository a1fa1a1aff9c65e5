/**
 * The website's own words in its two languages. Chinese is the default (the API's language); English is
 * the switch. The directory's data (tool names, descriptions, category names) is shown in English where an
 * editor filled its English field, in Chinese otherwise (localize.ts).
 */
export type Lang = 'zh' | 'en';

export const LANGS: readonly Lang[] = ['zh', 'en'];

export interface SiteText {
  htmlLang: string;
  ogLocale: string;
  siteName: string;
  tagline: string;
  homeTitle: string;
  heroHeading: string;
  skipToContent: string;
  searchLabel: string;
  searchPlaceholder: string;
  searchButton: string;
  switchLanguage: string;
  switchLanguageLabel: string;
  primaryNav: string;
  home: string;
  categories: string;
  allCategories: string;
  featured: string;
  popular: string;
  toolCount(count: string): string;
  visitCount(count: string): string;
  stats(tools: string, categories: string): string;
  breadcrumb: string;
  visitSite: string;
  visitSiteOf(name: string): string;
  opensExternal: string;
  tags: string;
  tagLink(tag: string): string;
  subcategories: string;
  tagTitle(tag: string): string;
  tagHeading(tag: string): string;
  tagDescription(tag: string, count: string): string;
  related: string;
  category: string;
  updatedAt(date: string): string;
  searchTitle(keyword: string): string;
  searchHeading: string;
  searchResultsFor(keyword: string, total: string): string;
  searchPrompt: string;
  noResults(keyword: string): string;
  noResultsHint: string;
  pagination: string;
  previous: string;
  next: string;
  pageOf(page: string, pages: string): string;
  pageSuffix(page: string): string;
  emptyCategory: string;
  notFoundTitle: string;
  notFoundText: string;
  badRequestTitle: string;
  keywordTooLong(max: string): string;
  keywordInvalid: string;
  badPage: string;
  methodTitle: string;
  methodText: string;
  tooManyTitle: string;
  tooManyText: string;
  errorTitle: string;
  errorText: string;
  backHome: string;
  footerSitemap: string;
  footerNote: string;
  latest: string;
  addedOn(date: string): string;
  sortLabel: string;
  sorts: { popular: string; latest: string; name: string };
  badSort: string;
  details: string;
  detailsOf(name: string): string;
  opensNewTab: string;
  moreInCategory(count: string): string;
  categoryIndex: string;
  darkMode: string;
  ogImageAlt: string;
}

const zh: SiteText = {
  htmlLang: 'zh-CN',
  ogLocale: 'zh_CN',
  siteName: '工具导航',
  tagline: '精选实用工具与软件，按分类浏览，支持中文、拼音和错别字搜索',
  homeTitle: '工具导航 - 发现好用的在线工具与软件',
  heroHeading: '发现好用的工具',
  skipToContent: '跳到正文',
  searchLabel: '搜索工具',
  searchPlaceholder: '搜索工具，如：截图、jietu',
  searchButton: '搜索',
  switchLanguage: 'English',
  switchLanguageLabel: 'Switch to English',
  primaryNav: '主导航',
  home: '首页',
  categories: '分类',
  allCategories: '全部分类',
  featured: '精选推荐',
  popular: '热门',
  toolCount: (count) => `${count} 个工具`,
  visitCount: (count) => `${count} 次访问`,
  stats: (tools, categories) => `收录 ${tools} 个工具，${categories} 个分类`,
  breadcrumb: '位置',
  visitSite: '访问网站',
  visitSiteOf: (name) => `访问 ${name} 官网`,
  opensExternal: '（外部网站）',
  tags: '标签',
  tagLink: (tag) => `标签“${tag}”的全部工具`,
  subcategories: '子分类',
  tagTitle: (tag) => `#${tag} 相关工具`,
  tagHeading: (tag) => `#${tag}`,
  tagDescription: (tag, count) => `标签“${tag}”下的 ${count} 个工具`,
  related: '相关工具',
  category: '分类',
  updatedAt: (date) => `更新于 ${date}`,
  searchTitle: (keyword) => `“${keyword}”的搜索结果 - 工具导航`,
  searchHeading: '搜索工具',
  searchResultsFor: (keyword, total) => `“${keyword}”共找到 ${total} 个工具`,
  searchPrompt: '输入工具名称、用途、标签或拼音开始搜索。',
  noResults: (keyword) => `没有找到与“${keyword}”相关的工具`,
  noResultsHint: '换个说法试试，或者浏览下面的分类。',
  pagination: '分页',
  previous: '上一页',
  next: '下一页',
  pageOf: (page, pages) => `第 ${page} / ${pages} 页`,
  pageSuffix: (page) => `（第 ${page} 页）`,
  emptyCategory: '这个分类还没有工具。',
  notFoundTitle: '页面不存在',
  notFoundText: '你要找的页面不存在，可能已被移除或链接有误。',
  badRequestTitle: '请求有误',
  keywordTooLong: (max) => `搜索词太长了，最多 ${max} 个字符。`,
  keywordInvalid: '搜索词包含无法识别的字符。',
  badPage: '页码必须是正整数。',
  methodTitle: '不支持的请求方法',
  methodText: '网站页面只接受 GET 请求。',
  tooManyTitle: '请求过于频繁',
  tooManyText: '你的访问太频繁了，请稍后再试。',
  errorTitle: '出错了',
  errorText: '服务器暂时出了点问题，请稍后再试。',
  backHome: '返回首页',
  footerSitemap: '站点地图',
  footerNote: '工具信息来自各工具官网，访问量为本站统计。',
  latest: '最新收录',
  addedOn: (date) => `${date} 收录`,
  sortLabel: '排序',
  sorts: { popular: '热门', latest: '最新', name: '名称' },
  badSort: '排序方式只能是 popular、latest 或 name。',
  details: '详情',
  detailsOf: (name) => `${name} 的详情`,
  opensNewTab: '（在新标签页打开）',
  moreInCategory: (count) => `查看全部 ${count} 个`,
  categoryIndex: '分类导航',
  darkMode: '深色模式',
  ogImageAlt: '工具导航：精选实用工具与软件',
};

const en: SiteText = {
  htmlLang: 'en',
  ogLocale: 'en_US',
  siteName: 'Tool Directory',
  tagline: 'Handpicked tools and software by category, searchable in Chinese, pinyin and English',
  homeTitle: 'Tool Directory - find useful online tools and software',
  heroHeading: 'Find the right tool',
  skipToContent: 'Skip to content',
  searchLabel: 'Search tools',
  searchPlaceholder: 'Search tools, e.g. PDF, jietu',
  searchButton: 'Search',
  switchLanguage: '中文',
  switchLanguageLabel: '切换到中文',
  primaryNav: 'Main',
  home: 'Home',
  categories: 'Categories',
  allCategories: 'All categories',
  featured: 'Featured',
  popular: 'Popular',
  toolCount: (count) => `${count} ${count === '1' ? 'tool' : 'tools'}`,
  visitCount: (count) => `${count} ${count === '1' ? 'visit' : 'visits'}`,
  stats: (tools, categories) => `${tools} tools in ${categories} categories`,
  breadcrumb: 'Breadcrumb',
  visitSite: 'Visit website',
  visitSiteOf: (name) => `Visit the ${name} website`,
  opensExternal: ' (external site)',
  tags: 'Tags',
  tagLink: (tag) => `All tools tagged “${tag}”`,
  subcategories: 'Subcategories',
  tagTitle: (tag) => `Tools tagged #${tag}`,
  tagHeading: (tag) => `#${tag}`,
  tagDescription: (tag, count) => `${count} ${count === '1' ? 'tool' : 'tools'} tagged “${tag}”`,
  related: 'Related tools',
  category: 'Category',
  updatedAt: (date) => `Updated ${date}`,
  searchTitle: (keyword) => `“${keyword}” - Tool Directory search`,
  searchHeading: 'Search tools',
  searchResultsFor: (keyword, total) => `${total} ${total === '1' ? 'tool' : 'tools'} for “${keyword}”`,
  searchPrompt: 'Type a tool name, a use, a tag or pinyin to start searching.',
  noResults: (keyword) => `No tools found for “${keyword}”`,
  noResultsHint: 'Try other words, or browse the categories below.',
  pagination: 'Pagination',
  previous: 'Previous',
  next: 'Next',
  pageOf: (page, pages) => `Page ${page} of ${pages}`,
  pageSuffix: (page) => ` (page ${page})`,
  emptyCategory: 'No tools in this category yet.',
  notFoundTitle: 'Page not found',
  notFoundText: 'The page you are looking for does not exist; it may have been removed, or the link is wrong.',
  badRequestTitle: 'Bad request',
  keywordTooLong: (max) => `The search text is too long: at most ${max} characters.`,
  keywordInvalid: 'The search text contains characters that cannot be searched.',
  badPage: 'The page number must be a positive integer.',
  methodTitle: 'Method not allowed',
  methodText: 'Website pages answer GET requests only.',
  tooManyTitle: 'Too many requests',
  tooManyText: 'You are making requests too quickly. Please try again later.',
  errorTitle: 'Something went wrong',
  errorText: 'The server ran into a problem. Please try again later.',
  backHome: 'Back to home',
  footerSitemap: 'Sitemap',
  footerNote: 'Tool information comes from each tool’s own website; visits are counted on this site.',
  latest: 'Newest',
  addedOn: (date) => `Added ${date}`,
  sortLabel: 'Sort by',
  sorts: { popular: 'Popular', latest: 'Newest', name: 'Name' },
  badSort: 'The sort must be popular, latest or name.',
  details: 'Details',
  detailsOf: (name) => `Details of ${name}`,
  opensNewTab: ' (opens in a new tab)',
  moreInCategory: (count) => `All ${count}`,
  categoryIndex: 'Category index',
  darkMode: 'Dark mode',
  ogImageAlt: 'Tool Directory: handpicked tools and software',
};

export const SITE_TEXT: Readonly<Record<Lang, SiteText>> = { zh, en };

const numberFormats: Record<Lang, Intl.NumberFormat> = { zh: new Intl.NumberFormat('zh-CN'), en: new Intl.NumberFormat('en-US') };

export function formatNumber(lang: Lang, value: number): string {
  return numberFormats[lang].format(value);
}

/** A date as YYYY-MM-DD (both languages read it). */
export function formatDate(iso: string): string {
  return iso.slice(0, 10);
}
