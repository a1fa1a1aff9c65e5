import { html, type Html, type HtmlValue } from '../site/html';
import type { CatalogMessage } from '../catalog/catalog-messages';
import { adminMessage } from './admin-localize';
import type { SiteAssets } from '../site/site-assets';
import { themeHead, themeToggle } from '../site/theme';
import { adminLang, htmlLangOf } from './admin-lang';
import { ADMIN_TEXT as T } from './admin-text';
import { ADS_TEXT as A } from './ads-text';
import { IMPORT_TEXT as I } from './import-text';
import { SUBMISSION_TEXT as S } from './submission-text';

/** What every admin page is rendered with. */
export interface AdminContext {
  siteAssets: SiteAssets;
  adminCssUrl: string;
  /** The signed-in editor and their session's form token; absent on the sign-in page. */
  session?: { editorName: string; csrfToken: string };
  /** How many visitors' submissions wait for review (shown in the nav). */
  pendingSubmissions?: number;
  /** The page's own address (the language switch comes back to it). */
  path?: string;
}

export type Section = 'tools' | 'categories' | 'keys' | 'ads' | 'links' | 'submissions' | 'import';

/** The hidden field every POST form carries (checked against the session, or the sign-in cookie). */
export function csrfField(token: string): Html {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

/** A refused field; a catalog message is worded in the request's language. */
export interface FieldError {
  field: string;
  message: string | CatalogMessage;
}

/** The errors above a refused form, each linking to its field. */
export function errorSummary(errors: readonly FieldError[], labels: Record<string, string> = T.fields): Html | null {
  if (errors.length === 0) return null;
  return html`<div class="notice notice--error" role="alert" id="form-errors">
  <p>${T.formHasErrors(errors.length)}</p>
  <ul>${errors.map((error) => html`<li><a href="#field-${error.field}">${labels[error.field] ?? error.field}</a>: ${adminMessage(error.message)}</li>`)}</ul>
</div>`;
}

interface FieldOptions {
  name: string;
  /** The label, when not the field's usual one (ADMIN_TEXT.fields). */
  label?: string;
  value: string;
  errors: readonly FieldError[];
  type?: 'text' | 'url' | 'number' | 'textarea';
  required?: boolean;
  hint?: string;
  wide?: boolean;
  maxlength?: number;
  /** The language of the value, when not the page's (the English fields). */
  lang?: string;
}

/** A labelled input with its hint and, when refused, its error (tied to it by aria-describedby). */
export function field(options: FieldOptions): Html {
  const id = `field-${options.name}`;
  const error = options.errors.find((candidate) => candidate.field === options.name);
  const describedBy = [options.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = html`id="${id}" name="${options.name}"${options.required ? html` required` : null}${options.maxlength ? html` maxlength="${options.maxlength}"` : null}${options.lang ? html` lang="${options.lang}"` : null}${describedBy ? html` aria-describedby="${describedBy}"` : null}${error ? html` aria-invalid="true"` : null}`;
  const control =
    options.type === 'textarea'
      ? html`<textarea ${common}>${options.value}</textarea>`
      : html`<input type="${options.type ?? 'text'}" ${common} value="${options.value}">`;
  return html`<div class="field${options.wide ? ' field--wide' : ''}${error ? ' field--invalid' : ''}">
  <label for="${id}">${options.label ?? T.fields[options.name] ?? options.name}</label>
  ${control}
  ${options.hint ? html`<span class="field__hint" id="${id}-hint">${options.hint}</span>` : null}
  ${error ? html`<span class="field__error" id="${id}-error">${adminMessage(error.message)}</span>` : null}
</div>`;
}

/** `refreshSeconds`: the page reloads itself (an import's progress, without script). */
export function renderAdminPage(context: AdminContext, page: { title: string; section?: Section; notice?: HtmlValue; main: Html; refreshSeconds?: number }): string {
  const { session } = context;
  const lang = adminLang();
  const other = lang === 'zh' ? 'en' : 'zh';
  const switchHref = `/admin/lang?to=${other}&next=${encodeURIComponent(context.path ?? '/admin/')}`;
  const current = (section: Section) => (page.section === section ? html` aria-current="page"` : null);
  return html`<!doctype html>
<html lang="${htmlLangOf(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
${page.refreshSeconds ? html`<meta http-equiv="refresh" content="${page.refreshSeconds}">` : null}
<title>${page.title} · ${T.title}</title>
${themeHead()}
<link rel="icon" type="image/svg+xml" href="${context.siteAssets.url('icon.svg')}">
<link rel="stylesheet" href="${context.siteAssets.url('site.css')}">
<link rel="stylesheet" href="${context.adminCssUrl}">
<script src="${context.siteAssets.url('theme.js')}" defer></script>
</head>
<body>
<a class="skip-link" href="#main">${T.skipToContent}</a>
<header class="site-header">
  <div class="site-bar container">
    <a class="brand" href="/admin/"><img class="brand__logo" src="${context.siteAssets.url('icon.svg')}" alt="" width="32" height="32"><span>${T.title}</span></a>
    <nav class="site-nav admin-nav" aria-label="${T.nav}">
      ${session
        ? html`<a href="/admin/tools"${current('tools')}>${T.tools}</a>
      <a href="/admin/categories"${current('categories')}>${T.categories}</a>
      <a href="/admin/keys"${current('keys')}>${T.keys}</a>
      <a href="/admin/ads"${current('ads')}>${A.nav}</a>
      <a href="/admin/links"${current('links')}>${T.links}</a>
      <a href="/admin/import"${current('import')}>${I.nav}</a>
      <a href="/admin/submissions"${current('submissions')}>${S.nav}${context.pendingSubmissions ? html`<span class="badge">${context.pendingSubmissions}</span><span class="visually-hidden">${S.navCount(context.pendingSubmissions)}</span>` : null}</a>`
        : null}
      <a href="/">${T.viewSite}</a>
      ${themeToggle(T.darkMode)}
      <a class="lang-switch" href="${switchHref}" lang="${htmlLangOf(other)}" aria-label="${T.switchLanguageLabel}">${T.switchLanguage}</a>
      ${session
        ? html`<span class="admin-who">${T.signedInAs(session.editorName)}</span>
      <form method="post" action="/admin/sign-out">${csrfField(session.csrfToken)}<button class="btn btn--quiet btn--small" type="submit">${T.signOut}</button></form>`
        : null}
    </nav>
  </div>
</header>
<main id="main" class="admin-main container" tabindex="-1">
${page.notice ?? null}
${page.main}
</main>
</body>
</html>
`.text;
}

/** A short message page (not found, form expired, fault). */
export function renderMessagePage(context: AdminContext, title: string, text: string): string {
  return renderAdminPage(context, {
    title,
    main: html`<div class="admin-card admin-card--narrow"><h1>${title}</h1><p>${text}</p><p><a href="/admin/">${T.title}</a></p></div>`,
  });
}

export function renderSignIn(context: AdminContext, form: { csrfToken: string; name: string; next: string; error?: string }): string {
  return renderAdminPage(context, {
    title: T.signInTitle,
    main: html`<div class="admin-card admin-card--narrow">
  <h1>${T.signInTitle}</h1>
  <p class="field__hint">${T.signInIntro}</p>
  ${form.error ? html`<div class="notice notice--error" role="alert">${form.error}</div>` : null}
  <form method="post" action="/admin/sign-in">
    ${csrfField(form.csrfToken)}
    <input type="hidden" name="next" value="${form.next}">
    <div class="field"><label for="sign-in-name">${T.name}</label><input type="text" id="sign-in-name" name="name" value="${form.name}" autocomplete="username" required maxlength="64" autocapitalize="none" spellcheck="false"></div>
    <div class="field"><label for="sign-in-password">${T.password}</label><input type="password" id="sign-in-password" name="password" autocomplete="current-password" required maxlength="128"></div>
    <button class="btn" type="submit">${T.signIn}</button>
  </form>
</div>`,
  });
}

/** The page that asks before a delete (no script: the question is a page, the answer a POST). */
export function renderConfirmDelete(context: AdminContext, options: { name: string; text: string; action: string; back: string }): string {
  return renderAdminPage(context, {
    title: T.deleteConfirmTitle(options.name),
    main: html`<div class="admin-card admin-card--narrow">
  <h1>${T.deleteConfirmTitle(options.name)}</h1>
  <p>${options.text}</p>
  <form method="post" action="${options.action}" class="actions">
    ${csrfField(context.session!.csrfToken)}
    <button class="btn btn--danger" type="submit">${T.confirmDelete}</button>
    <a class="btn btn--quiet" href="${options.back}">${T.cancel}</a>
  </form>
</div>`,
  });
}
