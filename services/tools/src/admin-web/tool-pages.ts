import type { EditableCategory, EditableTool } from '../catalog/catalog-edits';
import { adminMessage, adminName } from './admin-localize';
import type { FormFields } from '../catalog/catalog-editor';
import { html, type Html } from '../site/html';
import { HEALTH_TEXT as H } from './health-text';
import { csrfField, errorSummary, field, renderAdminPage, type AdminContext, type FieldError } from './admin-layout';
import { ADMIN_TEXT as T } from './admin-text';

export const TOOLS_PER_PAGE = 50;

export interface ToolListView {
  tools: EditableTool[];
  total: number;
  totalVisits: number;
  sort?: 'visits';
  page: number;
  categories: EditableCategory[];
  categoryId?: number;
  query: string;
  notice?: string;
}

function listHref(view: ToolListView, page: number): string {
  const params = new URLSearchParams();
  if (view.categoryId !== undefined) params.set('category', String(view.categoryId));
  if (view.query) params.set('q', view.query);
  if (view.sort) params.set('sort', view.sort);
  if (page > 1) params.set('page', String(page));
  const query = params.toString();
  return `/admin/tools${query ? `?${query}` : ''}`;
}

export function renderToolList(context: AdminContext, view: ToolListView): string {
  const csrf = context.session!.csrfToken;
  const pages = Math.max(1, Math.ceil(view.total / TOOLS_PER_PAGE));
  const rows = view.tools.map(
    (tool) => html`<tr>
  <td><a href="/admin/tools/${tool.id}/edit">${adminName(tool)}</a><br><span class="slug">${tool.slug}</span></td>
  <td>${adminName({ name: tool.category_name, name_en: tool.category_name_en })}</td>
  <td class="num">${tool.sort_order}</td>
  <td class="num">${tool.visits}</td>
  <td>${tool.is_featured ? html`<span class="badge">${T.featured}</span>` : null}</td>
  <td><div class="row-actions">
    <form method="post" action="/admin/tools/${tool.id}/feature">${csrfField(csrf)}<input type="hidden" name="featured" value="${tool.is_featured ? '0' : '1'}"><button class="btn btn--quiet btn--small" type="submit">${tool.is_featured ? T.unfeature : T.feature}<span class="visually-hidden">${T.colon}${adminName(tool)}</span></button></form>
    <a class="btn btn--quiet btn--small" href="/admin/tools/${tool.id}/edit">${T.edit}<span class="visually-hidden">${T.colon}${adminName(tool)}</span></a>
    <a class="btn btn--quiet btn--small" href="/admin/tools/${tool.id}/delete">${T.delete}<span class="visually-hidden">${T.colon}${adminName(tool)}</span></a>
  </div></td>
</tr>`,
  );
  return renderAdminPage(context, {
    title: T.tools,
    section: 'tools',
    notice: view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null,
    main: html`<div class="admin-head"><h1>${T.tools}</h1><a class="btn" href="/admin/tools/new">${T.newTool}</a></div>
<p class="admin-total" data-total-visits="${view.totalVisits}">${H.totalVisits(view.totalVisits)}</p>
<form class="filters" method="get" action="/admin/tools" role="search">
  <div class="field"><label for="filter-category">${T.fields.category}</label><select id="filter-category" name="category">
    <option value="">${T.allCategories}</option>
    ${view.categories.map((category) => html`<option value="${category.id}"${category.id === view.categoryId ? html` selected` : null}>${adminName(category)}</option>`)}
  </select></div>
  <div class="field"><label for="filter-q">${T.searchTools}</label><input type="search" id="filter-q" name="q" value="${view.query}" maxlength="100"></div>
  <div class="field"><label for="filter-sort">${H.sortLabel}</label><select id="filter-sort" name="sort">
    <option value="">${H.sortDefault}</option>
    <option value="visits"${view.sort === 'visits' ? html` selected` : null}>${H.sortByVisits}</option>
  </select></div>
  <button class="btn btn--quiet" type="submit">${T.filter}</button>
</form>
${view.tools.length === 0
  ? html`<p class="admin-card">${view.categories.length === 0 ? T.noCategories : T.noTools}</p>`
  : html`<div class="table-wrap"><table class="admin-table">
  <caption class="visually-hidden">${T.tools}</caption>
  <thead><tr><th scope="col">${T.fields.name}</th><th scope="col">${T.fields.category}</th><th scope="col" class="num">${T.fields.sort_order}</th><th scope="col" class="num"${view.sort === 'visits' ? html` aria-sort="descending"` : null}><a href="${listHref({ ...view, sort: 'visits' }, 1)}">${T.visits}</a></th><th scope="col">${T.featured}</th><th scope="col">${T.actions}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>
<nav class="admin-pager" aria-label="${T.pageOf(view.page, pages)}">
  ${view.page > 1 ? html`<a href="${listHref(view, view.page - 1)}">${T.previous}</a>` : null}
  <span>${T.pageOf(view.page, pages)}</span>
  ${view.page < pages ? html`<a href="${listHref(view, view.page + 1)}">${T.next}</a>` : null}
</nav>`}`,
  });
}

/** The form fields of a stored tool, as the form shows them. */
export function toolFormFields(tool: EditableTool): FormFields {
  return {
    slug: tool.slug,
    name: tool.name,
    description: tool.description,
    name_en: tool.name_en,
    description_en: tool.description_en,
    url: tool.url,
    icon: tool.icon,
    category: tool.category_slug,
    tags: tool.tags.join(', '),
    is_featured: tool.is_featured ? 'on' : '',
    sort_order: String(tool.sort_order),
  };
}

export function renderToolForm(
  context: AdminContext,
  view: { id?: number; heading: string; form: FormFields; errors: readonly FieldError[]; categories: EditableCategory[]; iconPanel?: Html; notice?: string; action?: string; cancel?: string },
): string {
  const { form, errors } = view;
  const value = (name: string) => form[name] ?? '';
  const categoryError = errors.find((error) => error.field === 'category');
  return renderAdminPage(context, {
    title: view.heading,
    section: 'tools',
    notice: view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null,
    main: html`<div class="admin-head"><h1>${view.heading}</h1>${view.id !== undefined ? html`<a class="btn btn--quiet" href="/admin/tools/${view.id}/delete">${T.delete}</a>` : null}</div>
${errorSummary(errors)}
<form class="admin-card" method="post" action="${view.action ?? (view.id === undefined ? '/admin/tools' : `/admin/tools/${view.id}`)}" novalidate>
  ${csrfField(context.session!.csrfToken)}
  <div class="form-grid">
    ${field({ name: 'name', value: value('name'), errors, required: true, maxlength: 200 })}
    ${field({ name: 'slug', value: value('slug'), errors, required: true, hint: T.hints.slug, maxlength: 100 })}
    ${field({ name: 'url', value: value('url'), errors, type: 'url', required: true, hint: T.hints.url, wide: true })}
    <div class="field${categoryError ? ' field--invalid' : ''}">
      <label for="field-category">${T.fields.category}</label>
      <select id="field-category" name="category" required${categoryError ? html` aria-invalid="true" aria-describedby="field-category-error"` : null}>
        ${view.categories.map((category) => html`<option value="${category.slug}"${category.slug === value('category') ? html` selected` : null}>${category.parent_id !== null ? '\u3000└ ' : ''}${adminName(category)}</option>`)}
      </select>
      ${categoryError ? html`<span class="field__error" id="field-category-error">${adminMessage(categoryError.message)}</span>` : null}
    </div>
    ${field({ name: 'sort_order', value: value('sort_order') || '0', errors, type: 'number', hint: T.hints.sort_order })}
    ${field({ name: 'description', value: value('description'), errors, type: 'textarea', wide: true })}
    ${field({ name: 'name_en', value: value('name_en'), errors, hint: T.hints.english, maxlength: 200, lang: 'en' })}
    ${field({ name: 'description_en', value: value('description_en'), errors, type: 'textarea', wide: true, lang: 'en' })}
    ${field({ name: 'tags', value: value('tags'), errors, hint: T.hints.tags, wide: true })}
    ${field({ name: 'icon', value: value('icon'), errors, type: 'url', hint: T.hints.icon, wide: true })}
    <div class="field field--check field--wide"><input type="checkbox" id="field-is_featured" name="is_featured"${value('is_featured') === 'on' ? html` checked` : null}><label for="field-is_featured">${T.fields.is_featured}</label></div>
  </div>
  <div class="actions"><button class="btn" type="submit">${T.save}</button><a class="btn btn--quiet" href="${view.cancel ?? '/admin/tools'}">${T.cancel}</a></div>
</form>
${view.iconPanel ?? null}`,
  });
}
