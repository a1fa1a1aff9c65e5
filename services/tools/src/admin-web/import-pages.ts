import type { RowOutcome } from '../catalog/importer';
import { adminMessage, adminTime } from './admin-localize';
import type { ImportRun } from '../imports/import-runs-repository';
import { ADMIN_TEXT as T } from './admin-text';
import { html } from '../site/html';
import { csrfField, renderAdminPage, type AdminContext } from './admin-layout';
import { IMPORT_TEXT as I } from './import-text';

export const IMPORT_UPLOAD_MB = 20;
/** The per-row table lists changed and refused rows up to this many; unchanged rows are only counted. */
const ROWS_SHOWN = 2000;

/** The upload form (dry run first), the export links and the recent runs. */
export function renderImportPage(context: AdminContext, view: { runs: ImportRun[]; error?: string; status?: number }): string {
  const csrf = context.session!.csrfToken;
  return renderAdminPage(context, {
    title: I.title,
    section: 'import',
    main: html`<div class="admin-head"><h1>${I.title}</h1></div>
<section class="admin-card" aria-labelledby="import-heading">
  <h2 id="import-heading">${I.importHeading}</h2>
  <p class="field__hint">${I.intro}</p>
  ${view.error ? html`<div class="notice notice--error" role="alert" id="import-error"><p><strong>${I.refusedTitle}</strong></p><p>${view.error}</p></div>` : null}
  <form method="post" action="/admin/import" enctype="multipart/form-data" class="import-form">
    ${csrfField(csrf)}
    <div class="field field--wide${view.error ? ' field--invalid' : ''}">
      <label for="field-import_file">${I.file}</label>
      <input type="file" id="field-import_file" name="import_file" required accept=".json,.csv,.html,.htm,.db3,.db,.sqlite,application/json,text/csv,text/html" aria-describedby="field-import_file-hint${view.error ? ' import-error' : ''}"${view.error ? html` aria-invalid="true"` : null}>
      <span class="field__hint" id="field-import_file-hint">${I.fileHint(IMPORT_UPLOAD_MB)}</span>
    </div>
    <div class="field">
      <label for="field-import_format">${I.format}</label>
      <select id="field-import_format" name="format">
        <option value="">${I.formatAuto}</option>
        ${Object.entries(I.formats).map(([value, label]) => html`<option value="${value}">${label}</option>`)}
      </select>
    </div>
    <button class="btn" type="submit">${I.dryRun}</button>
  </form>
</section>
<section class="admin-card" aria-labelledby="export-heading">
  <h2 id="export-heading">${I.exportHeading}</h2>
  <p class="field__hint">${I.exportIntro}</p>
  <div class="actions">
    <a class="btn btn--quiet" href="/admin/export?format=json" download>${I.exportAs('JSON')}</a>
    <a class="btn btn--quiet" href="/admin/export?format=csv" download>${I.exportAs('CSV')}</a>
    <a class="btn btn--quiet" href="/admin/export?format=html" download>${I.exportAs(I.bookmarksHtml)}</a>
  </div>
</section>
<section class="admin-card" aria-labelledby="runs-heading">
  <h2 id="runs-heading">${I.recentHeading}</h2>
  ${view.runs.length === 0
    ? html`<p>${I.noRuns}</p>`
    : html`<div class="table-wrap"><table class="admin-table">
  <caption class="visually-hidden">${I.recentHeading}</caption>
  <thead><tr><th scope="col">${I.file}</th><th scope="col">${I.format}</th><th scope="col">${I.result}</th><th scope="col">${I.when}</th></tr></thead>
  <tbody>${view.runs.map(
    (run) => html`<tr><td><a href="/admin/imports/${run.id}">${run.file_name}</a></td><td>${I.formats[run.format] ?? run.format}</td><td>${run.dry_run ? I.dryRunShort : I.applyShort} · ${I.state[run.state]}</td><td>${adminTime(run.created_at)}</td></tr>`,
  )}</tbody>
</table></div>`}
</section>`,
  });
}

function rowsTable(rows: RowOutcome[]) {
  const listed = rows.filter((row) => row.outcome !== 'unchanged');
  const shown = listed.slice(0, ROWS_SHOWN);
  if (shown.length === 0) return null;
  return html`<h2 id="rows-heading">${I.rowsHeading}</h2>
${listed.length > shown.length ? html`<p class="field__hint">${I.rowsCapped(shown.length, listed.length)}</p>` : null}
<div class="table-wrap"><table class="admin-table import-rows" aria-labelledby="rows-heading">
  <thead><tr><th scope="col">${I.kind.tool}/${I.kind.category}</th><th scope="col">${I.row}</th><th scope="col">${I.slug}</th><th scope="col">${I.result}</th><th scope="col">${I.reason}</th></tr></thead>
  <tbody>${shown.map(
    (row) => html`<tr class="import-row--${row.outcome}"><td>${I.kind[row.kind]}</td><td>${row.row}</td><td class="slug">${row.slug ?? ''}</td><td>${I.outcome[row.outcome]}</td><td>${row.reason === undefined ? '' : adminMessage(row.reason)}</td></tr>`,
  )}</tbody>
</table></div>`;
}

/** A run: its progress bar while it runs (the page refreshes itself), then its report. */
export function renderImportRun(context: AdminContext, run: ImportRun): string {
  const title = run.dry_run ? I.dryRunTitle(run.file_name) : I.runTitle(run.file_name);
  const report = run.report;
  const counts = (kind: 'categories' | 'tools') =>
    report
      ? html`<tr><th scope="row">${I.kind[kind === 'categories' ? 'category' : 'tool']}</th><td>${report[kind].created}</td><td>${report[kind].updated}</td><td>${report[kind].unchanged}</td><td>${report[kind].rejected.length}</td></tr>`
      : null;
  const body =
    run.state === 'running'
      ? html`<p role="status">${I.running} ${I.progress(run.done_rows, run.total_rows)}</p>
<p><label for="import-progress">${I.progressLabel}</label>
<progress id="import-progress" max="${Math.max(run.total_rows, 1)}" value="${run.done_rows}">${I.progress(run.done_rows, run.total_rows)}</progress></p>
<p class="field__hint">${I.refreshHint}</p>`
      : run.state === 'failed'
        ? html`<div class="notice notice--error" role="alert"><p>${I.failed(run.error === null ? '' : adminMessage(run.error))}</p></div>`
        : html`<p class="notice" role="status">${run.dry_run ? I.dryRunDone : I.applyDone}</p>
<progress max="1" value="1" aria-label="${I.progressLabel}">100%</progress>
<table class="admin-table import-summary">
  <caption>${I.summary}</caption>
  <thead><tr><th scope="col"></th><th scope="col">${I.outcome.created}</th><th scope="col">${I.outcome.updated}</th><th scope="col">${I.outcome.unchanged}</th><th scope="col">${I.outcome.refused}</th></tr></thead>
  <tbody>${counts('categories')}${counts('tools')}</tbody>
</table>
${report && report.skipped > 0 ? html`<p>${I.outcome.skipped}${T.colon}${report.skipped}</p>` : null}
${run.dry_run
  ? run.applied_run_id
    ? html`<p><a class="btn" href="/admin/imports/${run.applied_run_id}">${I.viewApplied}</a></p>`
    : html`<form method="post" action="/admin/imports/${run.id}/apply">${csrfField(context.session!.csrfToken)}<button class="btn" type="submit">${I.apply}</button></form>`
  : null}
${report ? rowsTable(report.rows) : null}`;
  return renderAdminPage(context, {
    title,
    section: 'import',
    refreshSeconds: run.state === 'running' ? 1 : undefined,
    main: html`<div class="admin-head"><h1>${title}</h1><a class="btn btn--quiet" href="/admin/import">${I.uploadAnother}</a></div>
<div class="admin-card">${body}</div>`,
  });
}
