import type { Category } from '../catalog/catalog-repository';
import { SUBMISSION_FIELDS, CONTACT_MAX, DESCRIPTION_MAX, type SubmissionFieldError, type SubmissionForm } from '../submissions/submission-form';
import { HONEYPOT_FIELD } from '../submissions/submissions-service';
import { html, type Html } from './html';
import { asHtml } from './localize';
import { renderPage, type PageContext } from './page-layout';
import { SUBMIT_TEXT } from './submit-text';
import { pageUrl } from './site-urls';

const EMPTY: SubmissionForm = { name: '', url: '', category: '', description: '', contact: '' };

/** The 提交工具 form: plain HTML, posted to itself; a refused form comes back with each field's message. */
export function renderSubmitForm(context: PageContext, view: { categories: Category[]; form?: SubmissionForm; errors?: SubmissionFieldError[] }): string {
  const { lang, text } = context;
  const t = SUBMIT_TEXT[lang];
  const form = view.form ?? EMPTY;
  const errors = view.errors ?? [];
  // A select is chosen, not filled in: an empty category gets the same words as an unknown one.
  const messageOf = (error: SubmissionFieldError) =>
    (error.field === 'category' && error.problem === 'required' ? t.problems.unknownCategory : t.problems[error.problem])(t.fields[error.field]);
  const errorOf = (name: string) => errors.find((error) => error.field === name);
  const attributes = (name: keyof SubmissionForm, required: boolean) => {
    const error = errorOf(name);
    const describedBy = [t.hints[name] ? `submit-${name}-hint` : '', error ? `submit-${name}-error` : ''].filter(Boolean).join(' ');
    return html`id="submit-${name}" name="${name}"${required ? html` required` : null}${describedBy ? html` aria-describedby="${describedBy}"` : null}${error ? html` aria-invalid="true"` : null}`;
  };
  const wrap = (name: keyof SubmissionForm, required: boolean, control: Html) => {
    const error = errorOf(name);
    return html`<div class="form-field${error ? ' form-field--invalid' : ''}">
  <label for="submit-${name}">${t.fields[name]}${required ? null : html`<span class="form-field__optional">${t.optional}</span>`}</label>
  ${control}
  ${t.hints[name] ? html`<span class="form-field__hint" id="submit-${name}-hint">${t.hints[name]}</span>` : null}
  ${error ? html`<span class="form-field__error" id="submit-${name}-error">${messageOf(error)}</span>` : null}
</div>`;
  };
  return renderPage(context, {
    title: `${t.title} - ${text.siteName}`,
    description: t.intro,
    location: { kind: 'submit' },
    main: html`<div class="submit-page">
  <h1 class="page-title">${t.title}</h1>
  <p class="submit-page__intro">${t.intro}</p>
  ${errors.length > 0
    ? html`<div class="form-errors" role="alert" id="submit-errors"><p>${t.hasErrors(errors.length)}</p><ul>${[...errors]
        .sort((a, b) => SUBMISSION_FIELDS.indexOf(a.field) - SUBMISSION_FIELDS.indexOf(b.field))
        .map((error) => html`<li><a href="#submit-${error.field}">${messageOf(error)}</a></li>`)}</ul></div>`
    : null}
  <form class="submit-form" method="post" action="${pageUrl(lang, { kind: 'submit' })}" novalidate>
    ${wrap('name', true, html`<input type="text" ${attributes('name', true)} value="${form.name}" maxlength="200" autocomplete="off">`)}
    ${wrap('url', true, html`<input type="url" ${attributes('url', true)} value="${form.url}" maxlength="2000" inputmode="url" autocomplete="url" spellcheck="false">`)}
    ${wrap('category', true, html`<select ${attributes('category', true)}>
      <option value="">${t.chooseCategory}</option>
      ${view.categories.map((category) => html`<option value="${category.slug}"${category.slug === form.category ? html` selected` : null}>${asHtml(context.localize.categoryName(category))}</option>`)}
    </select>`)}
    ${wrap('description', false, html`<textarea ${attributes('description', false)} rows="4" maxlength="${DESCRIPTION_MAX}">${form.description}</textarea>`)}
    ${wrap('contact', false, html`<input type="text" ${attributes('contact', false)} value="${form.contact}" maxlength="${CONTACT_MAX}" autocomplete="email">`)}
    <div class="form-trap" aria-hidden="true"><label for="submit-${HONEYPOT_FIELD}">${t.honeypot}</label><input type="text" id="submit-${HONEYPOT_FIELD}" name="${HONEYPOT_FIELD}" value="" tabindex="-1" autocomplete="off"></div>
    <button class="button" type="submit">${t.send}</button>
  </form>
</div>`,
  });
}

/** After a stored submission (the POST redirected here, so a reload sends nothing again). */
export function renderSubmitThanks(context: PageContext): string {
  const { lang, text } = context;
  const t = SUBMIT_TEXT[lang];
  return renderPage(context, {
    title: `${t.thanksTitle} - ${text.siteName}`,
    description: t.thanksText,
    noindex: true,
    main: html`<div class="error-page" role="status">
  <h1 class="page-title">${t.thanksTitle}</h1>
  <p>${t.thanksText}</p>
  <p><a class="button" href="${pageUrl(lang, { kind: 'home' })}">${text.backHome}</a> <a href="${pageUrl(lang, { kind: 'submit' })}">${t.another}</a></p>
</div>`,
  });
}
