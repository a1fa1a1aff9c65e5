import type { Category, Tool } from '../catalog/catalog-repository';
import type { SearchResult } from '../catalog/directory-service';
import { html, httpUrl, type Html } from './html';
import { renderPage, type PageContext } from './page-layout';
import type { CategoryPageData, HomeData, ToolPageData } from './site-service';
import { formatDate, formatNumber } from './site-text';
import { pageUrl, visitUrl, type PageLocation } from './site-urls';

const AVATAR_HUES = 8;

/** A stable colour class for a tool's letter avatar (a class: the CSP allows no inline styles). */
function avatarHue(slug: string): number {
  let hash = 0;
  for (const character of slug) hash = (hash * 31 + character.codePointAt(0)!) >>> 0;
  return hash % AVATAR_HUES;
}

/**
 * A tool's icon: a letter avatar, with the icon we stored for it (served from our own origin, see
 * icons/) lazy-loaded over it. A tool without a stored icon gets no <img> at all, so no broken-image
 * glyph can cover the letter, with or without JavaScript.
 */
function toolIcon(context: PageContext, tool: Tool, size: 'small' | 'large' = 'small'): Html {
  const icon = context.iconUrl?.(tool.slug);
  const pixels = size === 'large' ? 64 : 40;
  const letter = [...tool.name.trim()][0]?.toUpperCase() ?? '?';
  return html`<span class="tool-icon tool-icon--${size} hue-${avatarHue(tool.slug)}" data-letter="${letter}" aria-hidden="true">${
    icon ? html`<img src="${icon}" alt="" width="${pixels}" height="${pixels}" loading="lazy" decoding="async">` : null
  }</span>`;
}

function toolCard(context: PageContext, tool: Tool, options: { showCategory?: boolean } = {}): Html {
  const { lang } = context;
  return html`<li class="tool-card">
  ${toolIcon(context, tool)}
  <div class="tool-card__body">
    <h3 class="tool-card__name"><a class="tool-card__link" href="${pageUrl(lang, { kind: 'tool', slug: tool.slug })}">${tool.name}</a>${
      tool.is_featured ? html` <span class="badge" title="${context.text.featured}">★</span>` : null
    }</h3>
    <p class="tool-card__description">${tool.description}</p>
    ${options.showCategory ? html`<p class="tool-card__meta">${tool.category_name}</p>` : null}
  </div>
</li>`;
}

function toolGrid(context: PageContext, tools: Tool[], options: { showCategory?: boolean } = {}): Html {
  return html`<ul class="tool-grid">${tools.map((tool) => toolCard(context, tool, options))}</ul>`;
}

function categoryList(context: PageContext, categories: Category[], current?: number): Html {
  const { lang, text } = context;
  return html`<ul class="category-grid">${categories.map(
    (category) => html`<li><a class="category-card${category.id === current ? ' category-card--current' : ''}" href="${pageUrl(lang, { kind: 'category', slug: category.slug, page: 1 })}"${
      category.id === current ? html` aria-current="page"` : null
    }>
    <span class="category-card__icon" aria-hidden="true">${category.icon || '📁'}</span>
    <span class="category-card__name">${category.name}</span>
    <span class="category-card__count">${text.toolCount(formatNumber(lang, category.tool_count))}</span>
  </a></li>`,
  )}</ul>`;
}

function breadcrumbs(context: PageContext, trail: { label: string; href?: string }[]): Html {
  return html`<nav class="breadcrumbs" aria-label="${context.text.breadcrumb}"><ol>${trail.map((step) =>
    step.href ? html`<li><a href="${step.href}">${step.label}</a></li>` : html`<li><span aria-current="page">${step.label}</span></li>`,
  )}</ol></nav>`;
}

function pagination(context: PageContext, page: number, totalPages: number, at: (page: number) => PageLocation): Html | null {
  if (totalPages <= 1) return null;
  const { lang, text } = context;
  const link = (target: number, label: string, rel: string) => html`<a class="pager__link" href="${pageUrl(lang, at(target))}" rel="${rel}">${label}</a>`;
  return html`<nav class="pager" aria-label="${text.pagination}">
  ${page > 1 ? link(page - 1, text.previous, 'prev') : html`<span class="pager__link pager__link--off" aria-disabled="true">${text.previous}</span>`}
  <span class="pager__status">${text.pageOf(formatNumber(lang, page), formatNumber(lang, totalPages))}</span>
  ${page < totalPages ? link(page + 1, text.next, 'next') : html`<span class="pager__link pager__link--off" aria-disabled="true">${text.next}</span>`}
</nav>`;
}

export function renderHome(context: PageContext, data: HomeData): string {
  const { lang, text } = context;
  const popular = data.stats.popular_tools;
  return renderPage(context, {
    title: text.homeTitle,
    description: text.tagline,
    location: { kind: 'home' },
    hero: {
      heading: text.heroHeading,
      stats: text.stats(formatNumber(lang, data.stats.total_tools), formatNumber(lang, data.stats.total_categories)),
    },
    main: html`<section class="section" id="categories" aria-labelledby="categories-heading">
  <h2 class="section__title" id="categories-heading">${text.categories}</h2>
  ${categoryList(context, data.categories)}
</section>
${data.featured.length > 0
  ? html`<section class="section" aria-labelledby="featured-heading">
  <h2 class="section__title" id="featured-heading">${text.featured}</h2>
  ${toolGrid(context, data.featured, { showCategory: true })}
</section>`
  : null}
${popular.length > 0
  ? html`<section class="section" aria-labelledby="popular-heading">
  <h2 class="section__title" id="popular-heading">${text.popular}</h2>
  <ol class="ranking">${popular.map(
    (tool, index) => html`<li class="ranking__item">
    <span class="ranking__place" aria-hidden="true">${index + 1}</span>
    ${toolIcon(context, tool)}
    <a class="ranking__name" href="${pageUrl(lang, { kind: 'tool', slug: tool.slug })}">${tool.name}</a>
    <span class="ranking__category">${tool.category_name}</span>
    <span class="ranking__visits">${text.visitCount(formatNumber(lang, tool.visits))}</span>
  </li>`,
  )}</ol>
</section>`
  : null}`,
  });
}

export function renderCategory(context: PageContext, data: CategoryPageData): string {
  const { lang, text } = context;
  const { category, pagination: pages, data: tools } = data.detail;
  const at = (page: number): PageLocation => ({ kind: 'category', slug: category.slug, page });
  const pageSuffix = pages.page > 1 ? text.pageSuffix(formatNumber(lang, pages.page)) : '';
  return renderPage(context, {
    title: `${category.name}${pageSuffix} - ${text.siteName}`,
    description: category.description || `${category.name} · ${text.toolCount(formatNumber(lang, category.tool_count))}`,
    location: at(pages.page),
    main: html`${breadcrumbs(context, [{ label: text.home, href: pageUrl(lang, { kind: 'home' }) }, { label: category.name }])}
<div class="page-head">
  <span class="page-head__icon" aria-hidden="true">${category.icon || '📁'}</span>
  <div>
    <h1 class="page-head__title">${category.name}${pageSuffix}</h1>
    ${category.description ? html`<p class="page-head__text">${category.description}</p>` : null}
    <p class="page-head__meta">${text.toolCount(formatNumber(lang, category.tool_count))}</p>
  </div>
</div>
${tools.length > 0 ? toolGrid(context, tools) : html`<p class="empty">${text.emptyCategory}</p>`}
${pagination(context, pages.page, pages.total_pages, at)}
<section class="section" aria-labelledby="other-categories">
  <h2 class="section__title" id="other-categories">${text.allCategories}</h2>
  ${categoryList(context, data.categories, category.id)}
</section>`,
  });
}

export function renderTool(context: PageContext, data: ToolPageData): string {
  const { lang, text } = context;
  const { tool, related } = data;
  const link = httpUrl(tool.url);
  const categoryHref = pageUrl(lang, { kind: 'category', slug: tool.category.slug, page: 1 });
  return renderPage(context, {
    title: `${tool.name} - ${tool.category.name} - ${text.siteName}`,
    description: tool.description || tool.name,
    location: { kind: 'tool', slug: tool.slug },
    ogType: 'article',
    main: html`${breadcrumbs(context, [
      { label: text.home, href: pageUrl(lang, { kind: 'home' }) },
      { label: tool.category.name, href: categoryHref },
      { label: tool.name },
    ])}
<article class="tool">
  <div class="tool__head">
    ${toolIcon(context, tool, 'large')}
    <div class="tool__title-block">
      <h1 class="tool__name">${tool.name}${tool.is_featured ? html` <span class="badge">${text.featured}</span>` : null}</h1>
      <p class="tool__meta"><span>${text.category}: <a href="${categoryHref}">${tool.category.name}</a></span><span>${text.visitCount(formatNumber(lang, tool.visits))}</span><span>${text.updatedAt(formatDate(tool.updated_at))}</span></p>
    </div>
    ${link
      ? html`<a class="button tool__visit" href="${visitUrl(tool.slug)}" rel="nofollow noopener" data-host="${new URL(link).host}">${text.visitSite}<span class="visually-hidden">${text.opensExternal}</span><svg aria-hidden="true" viewBox="0 0 24 24" width="16" height="16"><path d="M14 4h6v6M20 4l-9 9M19 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1h5"/></svg></a>`
      : null}
  </div>
  ${tool.description ? html`<p class="tool__description">${tool.description}</p>` : null}
  ${link ? html`<p class="tool__host">${new URL(link).host}</p>` : null}
  ${tool.tags.length > 0
    ? html`<div class="tool__tags"><h2 class="visually-hidden">${text.tags}</h2><ul class="tags">${tool.tags.map(
        (tag) => html`<li><a class="tag" href="${pageUrl(lang, { kind: 'search', keyword: tag, page: 1 })}" aria-label="${text.tagSearch(tag)}">#${tag}</a></li>`,
      )}</ul></div>`
    : null}
</article>
${related.length > 0
  ? html`<section class="section" aria-labelledby="related-heading">
  <h2 class="section__title" id="related-heading">${text.related}</h2>
  ${toolGrid(context, related)}
</section>`
  : null}`,
  });
}

export function renderSearch(context: PageContext, keyword: string, result: SearchResult | null, categories: Category[]): string {
  const { lang, text } = context;
  const at = (page: number): PageLocation => ({ kind: 'search', keyword, page });
  const title = keyword === '' ? `${text.searchHeading} - ${text.siteName}` : text.searchTitle(keyword);
  let body: Html;
  if (result === null) {
    body = html`<p class="search-summary">${text.searchPrompt}</p>
<section class="section" aria-labelledby="browse-heading"><h2 class="section__title" id="browse-heading">${text.categories}</h2>${categoryList(context, categories)}</section>`;
  } else if (result.total === 0) {
    body = html`<p class="search-summary" data-search-summary>${text.noResults(keyword)}</p>
<p class="empty">${text.noResultsHint}</p>
<section class="section" aria-labelledby="browse-heading"><h2 class="section__title" id="browse-heading">${text.categories}</h2>${categoryList(context, categories)}</section>`;
  } else {
    body = html`<p class="search-summary" data-search-summary>${text.searchResultsFor(keyword, formatNumber(lang, result.total))}</p>
${toolGrid(context, result.data, { showCategory: true })}
${pagination(context, result.page, result.total_pages, at)}`;
  }
  return renderPage(context, {
    title,
    description: text.tagline,
    location: at(result?.page ?? 1),
    noindex: true,
    keyword,
    main: html`<h1 class="page-title">${text.searchHeading}</h1>
${body}`,
  });
}

export function renderError(context: PageContext, error: { title: string; text: string }): string {
  const { lang, text } = context;
  return renderPage(context, {
    title: `${error.title} - ${text.siteName}`,
    description: error.text,
    noindex: true,
    main: html`<div class="error-page">
  <h1 class="page-title">${error.title}</h1>
  <p>${error.text}</p>
  <p><a class="button" href="${pageUrl(lang, { kind: 'home' })}">${text.backHome}</a></p>
</div>`,
  });
}
