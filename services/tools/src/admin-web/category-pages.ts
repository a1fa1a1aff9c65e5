import type { EditableCategory } from '../catalog/catalog-edits';
import { adminMessage, adminName } from './admin-localize';
import type { FormFields } from '../catalog/catalog-editor';
import { html, type Html } from '../site/html';
import { csrfField, errorSummary, field, renderAdminPage, type AdminContext, type FieldError } from './admin-layout';
import { ADMIN_TEXT as T } from './admin-text';

export function renderCategoryList(context: AdminContext, view: { categories: EditableCategory[]; notice?: string; error?: string }): string {
  const rows = view.categories.map(
    (category) => html`<tr>
  <td${category.parent_id !== null ? html` class="subcategory"` : null}>${category.icon ? html`<span aria-hidden="true">${category.icon}</span> ` : null}<a href="/admin/categories/${category.id}/edit">${adminName(category)}</a><br><span class="slug">${category.slug}</span></td>
  <td>${category.parent_slug ?? T.topLevel}</td>
  <td class="num">${category.sort_order}</td>
  <td class="num"><a href="/admin/tools?category=${category.id}">${T.toolCount(category.tool_count)}</a></td>
  <td><div class="row-actions">
    <a class="btn btn--quiet btn--small" href="/admin/categories/${category.id}/edit">${T.edit}<span class="visually-hidden">${T.colon}${adminName(category)}</span></a>
    <a class="btn btn--quiet btn--small" href="/admin/categories/${category.id}/delete">${T.delete}<span class="visually-hidden">${T.colon}${adminName(category)}</span></a>
  </div></td>
</tr>`,
  );
  return renderAdminPage(context, {
    title: T.categories,
    section: 'categories',
    notice: view.error
      ? html`<p class="notice notice--error" role="alert">${view.error}</p>`
      : view.notice
        ? html`<p class="notice" role="status">${view.notice}</p>`
        : null,
    main: html`<div class="admin-head"><h1>${T.categories}</h1><a class="btn" href="/admin/categories/new">${T.newCategory}</a></div>
${view.categories.length === 0
  ? html`<p class="admin-card">${T.noCategories}</p>`
  : html`<div class="table-wrap"><table class="admin-table">
  <caption class="visually-hidden">${T.categories}</caption>
  <thead><tr><th scope="col">${T.fields.name}</th><th scope="col">${T.fields.parent}</th><th scope="col" class="num">${T.fields.sort_order}</th><th scope="col" class="num">${T.tools}</th><th scope="col">${T.actions}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`}`,
  });
}

export function categoryFormFields(category: EditableCategory): FormFields {
  return { slug: category.slug, name: category.name, description: category.description, name_en: category.name_en, description_en: category.description_en, icon: category.icon, sort_order: String(category.sort_order), parent: category.parent_slug ?? '' };
}

/** The parent select: top-level categories only (two levels), never the category itself. */
function parentField(view: { id?: number; form: FormFields; errors: readonly FieldError[]; categories: EditableCategory[] }): Html {
  const error = view.errors.find((candidate) => candidate.field === 'parent');
  const chosen = view.form.parent ?? '';
  const options = view.categories.filter((category) => category.parent_id === null && category.id !== view.id);
  return html`<div class="field${error ? ' field--invalid' : ''}">
  <label for="field-parent">${T.fields.parent}</label>
  <select id="field-parent" name="parent" aria-describedby="field-parent-hint${error ? ' field-parent-error' : ''}"${error ? html` aria-invalid="true"` : null}>
    <option value="">${T.topLevel}</option>
    ${options.map((category) => html`<option value="${category.slug}"${category.slug === chosen ? html` selected` : null}>${adminName(category)}</option>`)}
    ${chosen !== '' && !options.some((category) => category.slug === chosen) ? html`<option value="${chosen}" selected>${chosen}</option>` : null}
  </select>
  <span class="field__hint" id="field-parent-hint">${T.hints.parent}</span>
  ${error ? html`<span class="field__error" id="field-parent-error">${adminMessage(error.message)}</span>` : null}
</div>`;
}

export function renderCategoryForm(context: AdminContext, view: { id?: number; heading: string; form: FormFields; errors: readonly FieldError[]; categories: EditableCategory[] }): string {
  const { form, errors } = view;
  const value = (name: string) => form[name] ?? '';
  return renderAdminPage(context, {
    title: view.heading,
    section: 'categories',
    main: html`<div class="admin-head"><h1>${view.heading}</h1>${view.id !== undefined ? html`<a class="btn btn--quiet" href="/admin/categories/${view.id}/delete">${T.delete}</a>` : null}</div>
${errorSummary(errors)}
<form class="admin-card" method="post" action="${view.id === undefined ? '/admin/categories' : `/admin/categories/${view.id}`}" novalidate>
  ${csrfField(context.session!.csrfToken)}
  <div class="form-grid">
    ${field({ name: 'name', value: value('name'), errors, required: true, maxlength: 100 })}
    ${field({ name: 'slug', value: value('slug'), errors, required: true, hint: T.hints.slug, maxlength: 100 })}
    ${parentField(view)}
    ${field({ name: 'icon', label: T.categoryIconLabel, value: value('icon'), errors, hint: T.hints.categoryIcon, maxlength: 500 })}
    ${field({ name: 'sort_order', value: value('sort_order') || '0', errors, type: 'number', hint: T.hints.sort_order })}
    ${field({ name: 'description', value: value('description'), errors, type: 'textarea', wide: true })}
    ${field({ name: 'name_en', value: value('name_en'), errors, hint: T.hints.english, maxlength: 100, lang: 'en' })}
    ${field({ name: 'description_en', value: value('description_en'), errors, type: 'textarea', wide: true, lang: 'en' })}
  </div>
  <div class="actions"><button class="btn" type="submit">${T.save}</button><a class="btn btn--quiet" href="/admin/categories">${T.cancel}</a></div>
</form>`,
  });
}
