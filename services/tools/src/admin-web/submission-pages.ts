import type { StoredSubmission } from '../submissions/submissions-repository';
import { adminName, adminTime } from './admin-localize';
import { html } from '../site/html';
import { csrfField, renderAdminPage, type AdminContext } from './admin-layout';
import { ADMIN_TEXT as T } from './admin-text';
import { SUBMISSION_TEXT as S } from './submission-text';

/** The pending submissions, oldest first, each with approve (a link to the prefilled form) and reject (a POST). */
export function renderSubmissionQueue(context: AdminContext, view: { submissions: StoredSubmission[]; notice?: string }): string {
  const csrf = context.session!.csrfToken;
  const rows = view.submissions.map(
    (item) => html`<tr>
  <td><strong>${item.name}</strong><br><a class="slug" href="${item.url}" rel="noopener noreferrer nofollow" target="_blank">${item.url}</a>${item.description ? html`<p class="submission-description">${item.description}</p>` : null}</td>
  <td>${item.category_name === null ? S.noCategory : adminName({ name: item.category_name, name_en: item.category_name_en })}</td>
  <td>${item.contact}</td>
  <td>${adminTime(item.created_at)}</td>
  <td><div class="row-actions">
    <a class="btn btn--small" href="/admin/submissions/${item.id}/approve">${S.approve}<span class="visually-hidden">${T.colon}${item.name}</span></a>
    <form method="post" action="/admin/submissions/${item.id}/reject" class="reject-form">${csrfField(csrf)}
      <label class="visually-hidden" for="reason-${item.id}">${S.reason}${T.colon}${item.name}</label>
      <input type="text" id="reason-${item.id}" name="reason" maxlength="500" placeholder="${S.reason}">
      <button class="btn btn--quiet btn--small" type="submit">${S.reject}<span class="visually-hidden">${T.colon}${item.name}</span></button>
    </form>
  </div></td>
</tr>`,
  );
  return renderAdminPage(context, {
    title: S.title,
    section: 'submissions',
    notice: view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null,
    main: html`<div class="admin-head"><h1>${S.title}</h1></div>
<p class="field__hint">${S.intro}</p>
${view.submissions.length === 0
  ? html`<p class="admin-card">${S.empty}</p>`
  : html`<div class="table-wrap"><table class="admin-table">
  <caption class="visually-hidden">${S.title}</caption>
  <thead><tr><th scope="col">${T.fields.name}</th><th scope="col">${T.fields.category}</th><th scope="col">${S.contact}</th><th scope="col">${S.submitted}</th><th scope="col">${T.actions}</th></tr></thead>
  <tbody>${rows}</tbody>
</table></div>`}`,
  });
}
