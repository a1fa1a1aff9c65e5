import type { IconState } from '../icons/icon-repository';
import { iconUrl } from '../icons/icon-routes';
import { html, type Html } from '../site/html';
import { avatarHue } from '../site/pages';
import { csrfField, type AdminContext } from './admin-layout';
import { HEALTH_TEXT as H } from './health-text';

/** Largest icon file an editor may upload (a favicon is a few KB; the sharp pipeline caps pixels too). */
export const ICON_UPLOAD_BYTES = 512 * 1024;

export interface IconPanelView {
  toolId: number;
  slug: string;
  name: string;
  state?: IconState;
  /** What the editor typed in the URL field (kept after a refusal). */
  urlValue?: string;
  /** A refusal, shown at the field it concerns. */
  error?: { field: 'icon_url' | 'icon_file'; message: string };
}

function fieldError(view: IconPanelView, name: 'icon_url' | 'icon_file'): Html | null {
  return view.error?.field === name ? html`<span class="field__error" id="field-${name}-error">${view.error.message}</span>` : null;
}

/** The icon section of a tool's edit page: the stored icon (or the letter avatar), and the forms that change it. */
export function renderIconPanel(context: AdminContext, view: IconPanelView): Html {
  const csrf = csrfField(context.session!.csrfToken);
  const { state } = view;
  const letter = [...view.name.trim()][0]?.toUpperCase() ?? '?';
  // The fragment brings the answer (a refusal is a page of its own) back to this section.
  const action = (what: string) => `/admin/tools/${view.toolId}/icon/${what}#icon`;
  const invalid = (name: 'icon_url' | 'icon_file') => (view.error?.field === name ? html` aria-invalid="true" aria-describedby="field-${name}-error"` : null);
  return html`<section class="admin-card icon-panel" id="icon" aria-labelledby="icon-heading">
  <h2 id="icon-heading">${H.iconTitle}</h2>
  ${view.error ? html`<div class="notice notice--error" role="alert"><a href="#field-${view.error.field}">${view.error.message}</a></div>` : null}
  <div class="icon-current">
    <span class="tool-icon tool-icon--large hue-${avatarHue(view.slug)}" data-letter="${letter}">${
      state?.version ? html`<img src="${iconUrl(view.slug, state.version)}" alt="${H.iconCurrent}" width="64" height="64">` : null
    }</span>
    <div>
      <p>${state?.version ? (state.overrideFile ? H.iconFromFile : H.iconSource(state.sourceUrl ?? '')) : H.iconNone}</p>
      ${state?.lastError ? html`<p class="field__hint">${H.iconLastError(state.lastError)}</p>` : null}
    </div>
  </div>
  <form method="post" action="${action('url')}" class="icon-form" novalidate>
    ${csrf}
    <div class="field field--wide${view.error?.field === 'icon_url' ? ' field--invalid' : ''}">
      <label for="field-icon_url">${H.iconOverrideUrl}</label>
      <input type="url" id="field-icon_url" name="icon_url" value="${view.urlValue ?? state?.overrideUrl ?? ''}" maxlength="2000"${invalid('icon_url')}>
      <span class="field__hint">${H.iconOverrideUrlHint}</span>
      ${fieldError(view, 'icon_url')}
    </div>
    <button class="btn btn--quiet" type="submit">${H.iconUseUrl}</button>
  </form>
  <form method="post" action="${action('file')}" enctype="multipart/form-data" class="icon-form">
    ${csrf}
    <div class="field field--wide${view.error?.field === 'icon_file' ? ' field--invalid' : ''}">
      <label for="field-icon_file">${H.iconUpload}</label>
      <input type="file" id="field-icon_file" name="icon_file" accept="image/png,image/jpeg,image/gif,image/webp,image/x-icon,image/svg+xml,.ico,.svg"${invalid('icon_file')}>
      <span class="field__hint">${H.iconUploadHint(ICON_UPLOAD_BYTES / 1024)}</span>
      ${fieldError(view, 'icon_file')}
    </div>
    <button class="btn btn--quiet" type="submit">${H.iconUseFile}</button>
  </form>
  <div class="actions">
    <form method="post" action="${action('refresh')}">${csrf}<button class="btn btn--quiet btn--small" type="submit">${H.iconFetchAgain}</button></form>
    ${state?.overrideUrl || state?.overrideFile ? html`<form method="post" action="${action('clear')}">${csrf}<button class="btn btn--quiet btn--small" type="submit">${H.iconClear}</button></form>` : null}
  </div>
</section>`;
}
