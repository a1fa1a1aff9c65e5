import { html } from './html';
import { renderPage, type PageContext } from './page-layout';
import { breadcrumbs, pagination, sortLinks, toolGrid } from './pages';
import type { TagPageData } from './site-service';
import { formatNumber } from './site-text';
import { DEFAULT_SORT, pageUrl, type PageLocation } from './site-urls';

/**
 * A tag's page (`/tag/<name>`): every tool carrying the tag, with the cards, sorts and pages of a category
 * page. Tags are written by editors in any language, so the page claims no English alternate.
 */
export function renderTag(context: PageContext, data: TagPageData): string {
  const { lang, text } = context;
  const { tag, tools, pagination: pages } = data;
  const at = (page: number): PageLocation => ({ kind: 'tag', tag, page, sort: data.sort });
  const pageSuffix = pages.page > 1 ? text.pageSuffix(formatNumber(lang, pages.page)) : '';
  const summary = text.tagDescription(tag, formatNumber(lang, pages.total));
  return renderPage(context, {
    title: `${text.tagTitle(tag)}${pageSuffix} - ${text.siteName}`,
    description: summary,
    location: at(pages.page),
    noindex: data.sort !== DEFAULT_SORT,
    main: html`${breadcrumbs(context, [{ label: text.home, href: pageUrl(lang, { kind: 'home' }) }, { label: text.tagHeading(tag) }])}
<div class="page-head">
  <span class="page-head__icon" aria-hidden="true">#</span>
  <div>
    <h1 class="page-head__title">${text.tagHeading(tag)}${pageSuffix}</h1>
    <p class="page-head__meta">${summary}</p>
  </div>
</div>
${tools.length > 1 || pages.total_pages > 1 ? sortLinks(context, data.sort, (sort) => ({ kind: 'tag', tag, page: 1, sort })) : null}
${toolGrid(context, tools, { showCategory: true })}
${pagination(context, pages.page, pages.total_pages, at)}`,
  });
}
