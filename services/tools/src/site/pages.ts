import type { Category, Tool } from '../catalog/catalog-repository';
import type { SearchResult } from '../catalog/directory-service';
import { html, httpUrl, type Html } from './html';
import { asHtml } from './localize';
import { renderPage, type PageContext } from './page-layout';
import { CATEGORY_SORTS, type CategorySort } from './site-queries';
import type { CategoryPageData, ToolPageData } from './site-service';
import { formatDate, formatNumber } from './site-text';
import { DEFAULT_SORT, pageUrl, visitUrl, type PageLocation } from './site-urls';

const AVATAR_HUES = 8;

/** A stable colour class for a tool's letter avatar (a class: the CSP allows no inline styles). */
export function avatarHue(slug: string): number {
  let hash = 0;
  for (const character of slug) hash = (hash * 31 + character.codePointAt(0)!) >>> 0;
  return hash % AVATAR_HUES;
}

/**
 * A tool's icon: a letter avatar, with the icon we stored for it (served from our own origin, see
 * icons/) lazy-loaded over it. A tool without a stored icon gets no <img> at all, so no broken-image
 * glyph can cover the letter, with or without JavaScript.
 */
export function toolIcon(context: PageContext, tool: Tool, size: 'small' | 'large' = 'small'): Html {
  const icon = context.iconUrl?.(tool.slug);
  const pixels = size === 'large' ? 64 : 40;
  const letter = [...tool.name.trim()][0]?.toUpperCase() ?? '?';
  return html`<span class="tool-icon tool-icon--${size} hue-${avatarHue(tool.slug)}" data-letter="${letter}" aria-hidden="true">${
    icon ? html`<img src="${icon}" alt="" width="${pixels}" height="${pixels}" loading="lazy" decoding="async">` : null
  }</span>`;
}

/**
 * A tool as a compact card: one click on it opens the tool's own site in a new tab, through the counted
 * /go/ link; its page here is the small "details" link beside it. A tool without an http(s) address has
 * no link out, and the card opens its page instead.
 */
export function toolCard(context: PageContext, tool: Tool, options: { showCategory?: boolean } = {}): Html {
  const { lang, text, localize } = context;
  const name = localize.toolName(tool);
  const detail = pageUrl(lang, { kind: 'tool', slug: tool.slug });
  const outbound = httpUrl(tool.url) !== null;
  return html`<li class="tool-card" data-slug="${tool.slug}">
  <a class="tool-card__link" href="${outbound ? visitUrl(tool.slug) : detail}"${outbound ? html` target="_blank" rel="nofollow noopener"` : null}>
    ${toolIcon(context, tool)}
    <span class="tool-card__body">
      <span class="tool-card__name">${asHtml(name)}${tool.is_featured ? html` <span class="badge" title="${text.featured}">★</span>` : null}</span>
      <span class="tool-card__description">${asHtml(localize.toolDescription(tool))}</span>
      ${options.showCategory ? html`<span class="tool-card__meta">${asHtml(localize.categoryName({ id: tool.category_id, name: tool.category_name }))}</span>` : null}
    </span>${outbound ? html`<span class="visually-hidden">${text.opensNewTab}</span>` : null}
  </a>
  <a class="tool-card__detail" href="${detail}" aria-label="${text.detailsOf(name.text)}">${text.details}</a>
</li>`;
}

export function toolGrid(context: PageContext, tools: Tool[], options: { showCategory?: boolean } = {}): Html {
  return html`<ul class="tool-grid">${tools.map((tool) => toolCard(context, tool, options))}</ul>`;
}

export function categoryList(context: PageContext, categories: Category[], current?: number): Html {
  const { lang, text, localize } = context;
  return html`<ul class="category-grid">${categories.map(
    (category) => html`<li><a class="category-card${category.id === current ? ' category-card--current' : ''}" href="${pageUrl(lang, { kind: 'category', slug: category.slug, page: 1 })}"${
      category.id === current ? html` aria-current="page"` : null
    }>
    <span class="category-card__icon" aria-hidden="true">${category.icon || '📁'}</span>
    <span class="category-card__name">${asHtml(localize.categoryName(category))}</span>
    <span class="category-card__count">${text.toolCount(formatNumber(lang, category.tool_count))}</span>
  </a></li>`,
  )}</ul>`;
}

/** The top-level categories, each counting its subcategories' tools too (what its page lists). */
export function withSubcategoryCounts(categories: Category[]): Category[] {
  return categories
    .filter((category) => category.parent_id === null)
    .map((top) => ({ ...top, tool_count: top.tool_count + categories.filter((child) => child.parent_id === top.id).reduce((sum, child) => sum + child.tool_count, 0) }));
}

export function breadcrumbs(context: PageContext, trail: { label: string; href?: string }[]): Html {
  return html`<nav class="breadcrumbs" aria-label="${context.text.breadcrumb}"><ol>${trail.map((step) =>
    step.href ? html`<li><a href="${step.href}">${step.label}</a></li>` : html`<li><span aria-current="page">${step.label}</span></li>`,
  )}</ol></nav>`;
}

export function pagination(context: PageContext, page: number, totalPages: number, at: (page: number) => PageLocation): Html | null {
  if (totalPages <= 1) return null;
  const { lang, text } = context;
  const link = (target: number, label: string, rel: string) => html`<a class="pager__link" href="${pageUrl(lang, at(target))}" rel="${rel}">${label}</a>`;
  return html`<nav class="pager" aria-label="${text.pagination}">
  ${page > 1 ? link(page - 1, text.previous, 'prev') : html`<span class="pager__link pager__link--off" aria-disabled="true">${text.previous}</span>`}
  <span class="pager__status">${text.pageOf(formatNumber(lang, page), formatNumber(lang, totalPages))}</span>
  ${page < totalPages ? link(page + 1, text.next, 'next') : html`<span class="pager__link pager__link--off" aria-disabled="true">${text.next}</span>`}
</nav>`;
}

/** 热门/最新/名称: plain links (no JavaScript), the current one marked; each starts again at page 1. */
export function sortLinks(context: PageContext, current: CategorySort, at: (sort: CategorySort) => PageLocation): Html {
  const { lang, text } = context;
  return html`<nav class="sort" aria-label="${text.sortLabel}"><span class="sort__label" aria-hidden="true">${text.sortLabel}</span><ul class="sort__list">${CATEGORY_SORTS.map(
    (sort) => html`<li><a class="sort__link${sort === current ? ' sort__link--current' : ''}" href="${pageUrl(lang, at(sort))}"${
      sort === current ? html` aria-current="true"` : null
    }>${text.sorts[sort]}</a></li>`,
  )}</ul></nav>`;
}

export function renderCategory(context: PageContext, data: CategoryPageData): string {
  const { lang, text, localize } = context;
  const { category, pagination: pages, data: tools } = data.detail;
  const at = (page: number): PageLocation => ({ kind: 'category', slug: category.slug, page, sort: data.sort });
  const pageSuffix = pages.page > 1 ? text.pageSuffix(formatNumber(lang, pages.page)) : '';
  const name = localize.categoryName(category);
  const description = localize.categoryDescription(category);
  const count = text.toolCount(formatNumber(lang, pages.total));
  const trail = [{ label: text.home, href: pageUrl(lang, { kind: 'home' }) }];
  if (data.parent) trail.push({ label: localize.categoryName(data.parent).text, href: pageUrl(lang, { kind: 'category', slug: data.parent.slug, page: 1 }) });
  return renderPage(context, {
    title: `${name.text}${pageSuffix} - ${text.siteName}`,
    description: description.text || `${name.text} · ${count}`,
    location: at(pages.page),
    // Another order of the same tools: followed, not indexed (the default order is the page to index).
    noindex: data.sort !== DEFAULT_SORT,
    hasEnglish: localize.categoryHasEnglish(category),
    main: html`${breadcrumbs(context, [...trail, { label: name.text }])}
<div class="page-head">
  <span class="page-head__icon" aria-hidden="true">${category.icon || '📁'}</span>
  <div>
    <h1 class="page-head__title">${asHtml(name)}${pageSuffix}</h1>
    ${description.text ? html`<p class="page-head__text">${asHtml(description)}</p>` : null}
    <p class="page-head__meta">${count}</p>
  </div>
</div>
${data.subcategories.length > 0
  ? html`<section class="section" aria-labelledby="subcategories-heading">
  <h2 class="section__title" id="subcategories-heading">${text.subcategories}</h2>
  ${categoryList(context, data.subcategories)}
</section>`
  : null}
${tools.length > 1 || pages.total_pages > 1 ? sortLinks(context, data.sort, (sort) => ({ kind: 'category', slug: category.slug, page: 1, sort })) : null}
${tools.length > 0 ? toolGrid(context, tools, { showCategory: data.subcategories.length > 0 }) : html`<p class="empty">${text.emptyCategory}</p>`}
${pagination(context, pages.page, pages.total_pages, at)}
<section class="section" aria-labelledby="other-categories">
  <h2 class="section__title" id="other-categories">${text.allCategories}</h2>
  ${categoryList(context, withSubcategoryCounts(data.categories), data.parent?.id ?? category.id)}
</section>`,
  });
}

export function renderTool(context: PageContext, data: ToolPageData): string {
  const { lang, text, localize } = context;
  const { tool, related } = data;
  const link = httpUrl(tool.url);
  const categoryHref = pageUrl(lang, { kind: 'category', slug: tool.category.slug, page: 1 });
  const name = localize.toolName(tool);
  const description = localize.toolDescription(tool);
  const categoryName = localize.categoryName(tool.category);
  return renderPage(context, {
    title: `${name.text} - ${categoryName.text} - ${text.siteName}`,
    description: description.text || name.text,
    location: { kind: 'tool', slug: tool.slug },
    ogType: 'article',
    hasEnglish: localize.toolHasEnglish(tool),
    main: html`${breadcrumbs(context, [
      { label: text.home, href: pageUrl(lang, { kind: 'home' }) },
      { label: categoryName.text, href: categoryHref },
      { label: name.text },
    ])}
<article class="tool">
  <div class="tool__head">
    ${toolIcon(context, tool, 'large')}
    <div class="tool__title-block">
      <h1 class="tool__name">${asHtml(name)}${tool.is_featured ? html` <span class="badge">${text.featured}</span>` : null}</h1>
      <p class="tool__meta"><span>${text.category}: <a href="${categoryHref}">${asHtml(categoryName)}</a></span>${tool.visits > 0 ? html`<span>${text.visitCount(formatNumber(lang, tool.visits))}</span>` : null}<span>${text.updatedAt(formatDate(tool.updated_at))}</span></p>
    </div>
    ${link
      ? html`<a class="button tool__visit" href="${visitUrl(tool.slug)}" target="_blank" rel="nofollow noopener" data-host="${new URL(link).host}">${text.visitSite}<span class="visually-hidden">${text.opensNewTab}</span><svg aria-hidden="true" viewBox="0 0 24 24" width="16" height="16"><path d="M14 4h6v6M20 4l-9 9M19 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1h5"/></svg></a>`
      : null}
  </div>
  ${description.text ? html`<p class="tool__description">${asHtml(description)}</p>` : null}
  ${link ? html`<p class="tool__host">${new URL(link).host}</p>` : null}
  ${tool.tags.length > 0
    ? html`<div class="tool__tags"><h2 class="visually-hidden">${text.tags}</h2><ul class="tags">${tool.tags.map(
        (tag) => html`<li><a class="tag" href="${pageUrl(lang, { kind: 'tag', tag, page: 1 })}" aria-label="${text.tagLink(tag)}">#${tag}</a></li>`,
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
