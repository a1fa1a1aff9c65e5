import type { LinkCheck, LinkHealth } from '../links/link-repository';
import { adminName, adminTime } from './admin-localize';
import type { LinkStatus } from '../links/link-probe';
import { ADMIN_TEXT as T } from './admin-text';
import { html } from '../site/html';
import { csrfField, renderAdminPage, type AdminContext } from './admin-layout';
import { HEALTH_TEXT as H } from './health-text';


/** A check's reason in the editor's words; a code no table names (a future one) as it is. */
const reasonText = (reason: string) => H.linkReasons[reason] ?? (/^http_\d+$/.test(reason) ? H.httpError : reason);

const statusBadge = (status: string) => html`<span class="badge link-status link-status--${status}">${H.status[status] ?? status}</span>`;

function checkNowForm(context: AdminContext, slug: string, name: string) {
  return html`<form method="post" action="/admin/links/${slug}/check">${csrfField(context.session!.csrfToken)}<button class="btn btn--quiet btn--small" type="submit">${H.checkNow}<span class="visually-hidden">${T.colon}${name}</span></button></form>`;
}

export function renderLinkHealth(context: AdminContext, view: { counts: Record<LinkStatus, number>; filter: LinkStatus | 'all'; links: LinkHealth[] }): string {
  const filters: [LinkStatus | 'all', string][] = [['broken', H.showBroken], ['unknown', H.showUnknown], ['all', H.showAll]];
  const rows = view.links.map(
    (link) => html`<tr>
  <td><a href="/admin/tools/${link.toolId}/edit">${adminName(link)}</a><br><span class="slug">${link.slug}</span></td>
  <td class="link-url">${link.url}</td>
  <td>${statusBadge(link.status)}</td>
  <td>${reasonText(link.reason)}${link.httpStatus !== null ? html` (${link.httpStatus})` : null}</td>
  <td>${adminTime(link.checkedAt)}</td>
  <td class="num">${link.consecutiveFailures}</td>
  <td><div class="row-actions">${checkNowForm(context, link.slug, adminName(link))}<a class="btn btn--quiet btn--small" href="/admin/links/${link.slug}">${H.history}<span class="visually-hidden">${T.colon}${adminName(link)}</span></a></div></td>
</tr>`,
  );
  return renderAdminPage(context, {
    title: H.linksTitle,
    section: 'links',
    main: html`<div class="admin-head"><h1>${H.linksTitle}</h1></div>
<p>${H.linksIntro}</p>
<ul class="link-counts" aria-label="${H.linksTitle}">
  ${(['ok', 'broken', 'unknown'] as const).map((status) => html`<li>${statusBadge(status)} <strong data-count="${status}">${view.counts[status]}</strong></li>`)}
</ul>
<nav class="filters link-filters" aria-label="${H.filterLabel}">
  ${filters.map(([value, label]) => html`<a href="/admin/links?status=${value}"${value === view.filter ? html` aria-current="page"` : null}>${label}</a>`)}
</nav>
${view.links.length === 0
  ? html`<p class="admin-card">${H.noLinks}</p>`
  : html`<div class="table-wrap"><table class="admin-table">
  <caption class="visually-hidden">${H.linksTitle}</caption>
  <thead><tr><th scope="col">${H.tool}</th><th scope="col">${H.url}</th><th scope="col">${H.statusHeading}</th><th scope="col">${H.reason}</th><th scope="col">${H.checkedAt}</th><th scope="col" class="num">${H.failures}</th><th scope="col">${H.history}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`}`,
  });
}

export function renderLinkHistory(context: AdminContext, view: { slug: string; name: string; url: string; checks: LinkCheck[]; notice?: string }): string {
  const rows = view.checks.map(
    (check) => html`<tr><td>${adminTime(check.checkedAt)}</td><td>${statusBadge(check.status)}</td><td>${reasonText(check.reason)}</td><td class="num">${check.httpStatus ?? '-'}</td><td class="num">${check.durationMs}</td><td class="link-url">${check.url}</td></tr>`,
  );
  return renderAdminPage(context, {
    title: H.historyOf(view.name),
    section: 'links',
    notice: view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null,
    main: html`<div class="admin-head"><h1>${H.historyOf(view.name)}</h1>${checkNowForm(context, view.slug, view.name)}</div>
<p class="link-url">${view.url}</p>
${view.checks.length === 0
  ? html`<p class="admin-card">${H.noHistory}</p>`
  : html`<div class="table-wrap"><table class="admin-table">
  <caption class="visually-hidden">${H.history}</caption>
  <thead><tr><th scope="col">${H.checkedAt}</th><th scope="col">${H.statusHeading}</th><th scope="col">${H.reason}</th><th scope="col" class="num">${H.httpStatus}</th><th scope="col" class="num">${H.duration}</th><th scope="col">${H.url}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`}
<p><a href="/admin/links">${H.backToLinks}</a></p>`,
  });
}
