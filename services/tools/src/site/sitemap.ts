import { escapeHtml } from './html';
import type { SitemapData } from './site-service';
import { LANGS, SITE_TEXT } from './site-text';
import { pageUrl, type PageLocation } from './site-urls';

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** `/sitemap.xml`: an index of the pages file and one file per slice of tools, so it scales past 50,000 URLs. */
export function renderSitemapIndex(baseUrl: string, data: SitemapData): string {
  const files = ['/sitemap-pages.xml', ...Array.from({ length: data.toolFiles }, (_, index) => `/sitemap-tools-${index + 1}.xml`)];
  return `${XML_HEAD}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${files
    .map((file) => `<sitemap><loc>${escapeHtml(baseUrl + file)}</loc></sitemap>`)
    .join('\n')}\n</sitemapindex>\n`;
}

/**
 * A page in both languages, each entry naming its alternates (hreflang), as search engines ask, when its
 * content is in English (localize.ts); otherwise only its Chinese address (the English one names it canonical).
 */
function urlEntries(baseUrl: string, location: PageLocation, english: boolean, lastModified?: string): string {
  if (!english) return `<url><loc>${escapeHtml(baseUrl + pageUrl('zh', location))}</loc>${lastModified ? `<lastmod>${lastModified}</lastmod>` : ''}</url>`;
  const alternates = LANGS.map(
    (lang) => `<xhtml:link rel="alternate" hreflang="${SITE_TEXT[lang].htmlLang}" href="${escapeHtml(baseUrl + pageUrl(lang, location))}"/>`,
  ).join('');
  return LANGS.map(
    (lang) => `<url><loc>${escapeHtml(baseUrl + pageUrl(lang, location))}</loc>${lastModified ? `<lastmod>${lastModified}</lastmod>` : ''}${alternates}</url>`,
  ).join('\n');
}

function urlSet(entries: string[]): string {
  return `${XML_HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${entries.join('\n')}\n</urlset>\n`;
}

export function renderPagesSitemap(baseUrl: string, data: SitemapData): string {
  return urlSet([
    urlEntries(baseUrl, { kind: 'home' }, data.homeEnglish),
    ...data.categories.map((category) => urlEntries(baseUrl, { kind: 'category', slug: category.slug, page: 1 }, data.englishCategories.has(category.id))),
  ]);
}

export function renderToolsSitemap(baseUrl: string, tools: { slug: string; updated_at: string; english: boolean }[]): string {
  return urlSet(tools.map((tool) => urlEntries(baseUrl, { kind: 'tool', slug: tool.slug }, tool.english, tool.updated_at)));
}

/** Crawlers may read every page but the counted outbound links (/go/) and the API. */
export function renderRobots(baseUrl: string): string {
  return `User-agent: *\nDisallow: /go/\nDisallow: /api/\nAllow: /\n\nSitemap: ${baseUrl}/sitemap.xml\n`;
}
