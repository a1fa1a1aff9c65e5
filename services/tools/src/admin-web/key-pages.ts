import type { ApiKeyRow } from '../auth/api-keys-repository';
import { html } from '../site/html';
import { csrfField, errorSummary, field, renderAdminPage, type AdminContext, type FieldError } from './admin-layout';
import { ADMIN_TEXT as T } from './admin-text';

export interface KeyView {
  key: ApiKeyRow;
  /** Requests counted in the current hour's window; null when the limiter's store cannot tell now. */
  usedThisHour: number | null;
  /** Requests in the last 24 hours and 7 days (usage/key-hours.ts). */
  lastDay: number;
  lastWeek: number;
}

export function renderKeyList(
  context: AdminContext,
  view: { keys: KeyView[]; defaultLimit: number; notice?: string; created?: { name: string; apiKey: string }; form?: { name: string; limit: string; errors: readonly FieldError[] } },
): string {
  const csrf = context.session!.csrfToken;
  const form = view.form ?? { name: '', limit: '', errors: [] };
  const rows = view.keys.map(
    ({ key, usedThisHour, lastDay, lastWeek }) => html`<tr>
  <td>${key.name}<br><span class="slug">${key.keyPrefix}…</span></td>
  <td>${key.enabled ? T.keyEnabled : html`<span class="badge">${T.keyDisabled}</span>`}</td>
  <td class="num">${key.rateLimitPerHour ?? T.keyDefaultLimit(view.defaultLimit)}</td>
  <td class="num">${usedThisHour ?? '—'}</td>
  <td class="num">${lastDay}</td>
  <td class="num"><a href="/admin/keys/${key.id}/usage">${lastWeek}<span class="visually-hidden">${T.colon}${T.keyUsageLink}${T.paren(key.name)}</span></a></td>
  <td><div class="row-actions"><a class="btn btn--quiet btn--small" href="/admin/keys/${key.id}/limit">${T.keyLimitEdit}<span class="visually-hidden">${T.colon}${key.name}</span></a><form method="post" action="/admin/keys/${key.id}/${key.enabled ? 'disable' : 'enable'}">${csrfField(csrf)}<button class="btn btn--quiet btn--small" type="submit">${key.enabled ? T.keyDisable : T.keyEnable}<span class="visually-hidden">${T.colon}${key.name}</span></button></form></div></td>
</tr>`,
  );
  return renderAdminPage(context, {
    title: T.keys,
    section: 'keys',
    notice: view.created
      ? html`<div class="notice" role="status"><p>${T.keyCreated(view.created.name)}</p><p><code class="secret">${view.created.apiKey}</code></p></div>`
      : view.notice
        ? html`<p class="notice" role="status">${view.notice}</p>`
        : null,
    main: html`<div class="admin-head"><h1>${T.keys}</h1></div>
<p class="field__hint">${T.keysIntro}</p>
${view.keys.length === 0
  ? html`<p class="admin-card">${T.noKeys}</p>`
  : html`<div class="table-wrap"><table class="admin-table">
  <caption class="visually-hidden">${T.keys}</caption>
  <thead><tr><th scope="col">${T.fields.name}</th><th scope="col">${T.keyStatus}</th><th scope="col" class="num">${T.keyLimit}</th><th scope="col" class="num">${T.keyUsed}</th><th scope="col" class="num">${T.keyLastDay}</th><th scope="col" class="num">${T.keyLastWeek}</th><th scope="col">${T.actions}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`}
<h2>${T.newKey}</h2>
${errorSummary(form.errors)}
<form class="admin-card" method="post" action="/admin/keys" novalidate>
  ${csrfField(csrf)}
  <div class="form-grid">
    ${field({ name: 'name', value: form.name, errors: form.errors, required: true, maxlength: 100 })}
    ${field({ name: 'limit', label: T.keyLimit, value: form.limit, errors: form.errors, type: 'number', hint: T.keyLimitHint(view.defaultLimit) })}
  </div>
  <div class="actions"><button class="btn" type="submit">${T.newKey}</button></div>
</form>`,
  });
}

/** One key's hourly limit, changed (empty: the default). */
export function renderKeyLimit(context: AdminContext, view: { key: ApiKeyRow; defaultLimit: number; form: { limit: string; errors: readonly FieldError[] } }): string {
  const { key, form } = view;
  return renderAdminPage(context, {
    title: T.keyLimitTitle(key.name),
    section: 'keys',
    main: html`<p><a href="/admin/keys">← ${T.keys}</a></p>
<div class="admin-head"><h1>${T.keyLimitTitle(key.name)}</h1></div>
<p class="field__hint">${T.keyLimitIntro}</p>
${errorSummary(form.errors, { limit: T.keyLimit })}
<form class="admin-card" method="post" action="/admin/keys/${key.id}/limit" novalidate>
  ${csrfField(context.session!.csrfToken)}
  <div class="form-grid">
    ${field({ name: 'limit', label: T.keyLimit, value: form.limit, errors: form.errors, type: 'number', hint: T.keyLimitHint(view.defaultLimit) })}
  </div>
  <div class="actions"><button class="btn" type="submit">${T.save}</button><a class="btn btn--quiet" href="/admin/keys">${T.cancel}</a></div>
</form>`,
  });
}
