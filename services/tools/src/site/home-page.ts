import type { Category, Tool } from '../catalog/catalog-repository';
import { subcategoriesOf } from '../catalog/category-parents';
import { html, type Html } from './html';
import { asHtml } from './localize';
import { renderPage, type PageContext } from './page-layout';
import { toolGrid, toolIcon } from './pages';
import type { HomeData } from './site-service';
import { formatDate, formatNumber } from './site-text';
import { pageUrl, visitUrl } from './site-urls';

/** The anchor of a category's section on the home page (slugs are [a-z0-9._-], valid in an id). */
const sectionId = (slug: string) => `c-${slug}`;

/** A short ranked list (热门, 最新): a tool's name opens its site in a new tab, as a card does. */
function shortList(context: PageContext, id: string, heading: string, tools: Tool[], note: (tool: Tool) => string, ranked: boolean): Html {
  const { lang, text, localize } = context;
  return html`<section class="panel" aria-labelledby="${id}">
  <h2 class="panel__title" id="${id}">${heading}</h2>
  <ol class="ranking${ranked ? '' : ' ranking--plain'}">${tools.map(
    (tool, index) => html`<li class="ranking__item" data-slug="${tool.slug}">
    <span class="ranking__place" aria-hidden="true">${index + 1}</span>
    ${toolIcon(context, tool)}
    <a class="ranking__name" href="${visitUrl(tool.slug)}" target="_blank" rel="nofollow noopener">${asHtml(localize.toolName(tool))}<span class="visually-hidden">${text.opensNewTab}</span></a>
    <span class="ranking__note">${note(tool)}</span>
    <a class="ranking__detail" href="${pageUrl(lang, { kind: 'tool', slug: tool.slug })}" aria-label="${text.detailsOf(localize.toolName(tool).text)}">${text.details}</a>
  </li>`,
  )}</ol>
</section>`;
}

/**
 * The home page as a 导航 site: every category's tools in sections (the first few of each; the category
 * page has the rest), a side index of anchor links, and the real 热门 (visited tools only: hidden while
 * nobody has visited any) and 最新 lists.
 */
export function renderHome(context: PageContext, data: HomeData): string {
  const { lang, text, localize } = context;
  const listed = data.categories.filter((category) => (data.sections.get(category.id) ?? []).length > 0);
  // What a category's page lists: a parent's own tools and its subcategories'.
  const pageCount = (category: Category) => category.tool_count + subcategoriesOf(data.categories, category.id).reduce((sum, child) => sum + child.tool_count, 0);
  const tops = data.categories.filter((category) => category.parent_id === null || !data.categories.some((parent) => parent.id === category.parent_id));
  // A category with tools of its own links to its section here; one without (a parent holding only subcategories), to its page.
  const indexLink = (category: Category, count: number) =>
    html`<a class="side-index__link" href="${(data.sections.get(category.id) ?? []).length > 0 ? `#${sectionId(category.slug)}` : pageUrl(lang, { kind: 'category', slug: category.slug, page: 1 })}"><span class="side-index__icon" aria-hidden="true">${category.icon || '📁'}</span><span class="side-index__name">${asHtml(localize.categoryName(category))}</span><span class="side-index__count">${formatNumber(lang, count)}</span></a>`;
  return renderPage(context, {
    title: text.homeTitle,
    description: text.tagline,
    location: { kind: 'home' },
    hasEnglish: localize.homeHasEnglish(data.categories),
    hero: {
      heading: text.heroHeading,
      stats: text.stats(formatNumber(lang, data.stats.total_tools), formatNumber(lang, data.stats.total_categories)),
    },
    main: html`<div class="directory" id="categories">
<nav class="side-index" aria-labelledby="categories-heading">
  <h2 class="side-index__title" id="categories-heading">${text.categoryIndex}</h2>
  <ul class="side-index__list">${tops.map((category) => {
    const children = subcategoriesOf(data.categories, category.id);
    return html`<li>${indexLink(category, pageCount(category))}${
      children.length > 0 ? html`<ul class="side-index__sublist">${children.map((child) => html`<li>${indexLink(child, child.tool_count)}</li>`)}</ul>` : null
    }</li>`;
  })}</ul>
</nav>
<div class="directory__main">
${data.popular.length > 0 || data.latest.length > 0
  ? html`<div class="panels">
${data.popular.length > 0 ? shortList(context, 'popular-heading', text.popular, data.popular, (tool) => text.visitCount(formatNumber(lang, tool.visits)), true) : null}
${data.latest.length > 0 ? shortList(context, 'latest-heading', text.latest, data.latest, (tool) => text.addedOn(formatDate(tool.created_at)), false) : null}
</div>`
  : null}
${data.featured.length > 0
  ? html`<section class="section" aria-labelledby="featured-heading">
  <h2 class="section__title" id="featured-heading">${text.featured}</h2>
  ${toolGrid(context, data.featured, { showCategory: true })}
</section>`
  : null}
${listed.map((category) => {
  const tools = data.sections.get(category.id)!;
  const href = pageUrl(lang, { kind: 'category', slug: category.slug, page: 1 });
  return html`<section class="section category-section" id="${sectionId(category.slug)}" aria-labelledby="${sectionId(category.slug)}-heading">
  <div class="section__head">
    <h2 class="section__title" id="${sectionId(category.slug)}-heading"><span aria-hidden="true">${category.icon || '📁'}</span> <a href="${href}">${asHtml(localize.categoryName(category))}</a></h2>
    ${pageCount(category) > tools.length ? html`<a class="section__more" href="${href}">${text.moreInCategory(formatNumber(lang, pageCount(category)))}</a>` : null}
  </div>
  ${toolGrid(context, tools)}
</section>`;
})}
</div>
</div>`,
  });
}
