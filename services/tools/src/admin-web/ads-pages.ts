import type { AdsConfig } from '../ads/ads-config';
import { ADMIN_TEXT as T } from './admin-text';
import { html, type Html } from '../site/html';
import { csrfField, errorSummary, field, renderAdminPage, type AdminContext, type FieldError } from './admin-layout';
import { adminMessage } from './admin-localize';
import type { AdsForm } from './ads-form';
import { ADS_TEXT as A } from './ads-text';

function checkbox(form: AdsForm, name: keyof AdsForm, errors: readonly FieldError[]): Html {
  const error = errors.find((candidate) => candidate.field === name);
  const id = `field-${name}`;
  return html`<div class="field field--check${error ? ' field--invalid' : ''}"><input type="checkbox" id="${id}" name="${name}"${form[name] === 'on' ? html` checked` : null}${
    error ? html` aria-invalid="true" aria-describedby="${id}-error"` : null
  }><label for="${id}">${A.fields[name]}</label>${error ? html`<span class="field__error" id="${id}-error">${adminMessage(error.message)}</span>` : null}</div>`;
}

function positionSelect(form: AdsForm, errors: readonly FieldError[]): Html {
  const error = errors.find((candidate) => candidate.field === 'banner.position');
  const current = form['banner.position'] ?? 'bottom';
  return html`<div class="field${error ? ' field--invalid' : ''}">
  <label for="field-banner.position">${A.fields['banner.position']}</label>
  <select id="field-banner.position" name="banner.position"${error ? html` aria-invalid="true" aria-describedby="field-banner.position-error"` : null}>${['top', 'bottom'].map(
    (position) => html`<option value="${position}"${position === current ? html` selected` : null}>${A.positions[position]}</option>`,
  )}</select>
  ${error ? html`<span class="field__error" id="field-banner.position-error">${adminMessage(error.message)}</span>` : null}
</div>`;
}

/** How the mini-program will show `config`: a phone's page with each enabled ad where it goes, and the API's JSON. */
export function adsPreview(config: AdsConfig, note: string): Html {
  const anyOn = config.banner.enabled || config.interstitial.enabled || config.rewarded.enabled || config.native.enabled;
  const banner = config.banner.enabled ? html`<div class="ad-preview__banner" data-ad="banner">${A.previewBanner}<small>${A.unitLabel(config.banner.unit_id)}</small></div>` : null;
  return html`<section class="admin-card ads-preview" aria-labelledby="ads-preview-heading">
  <h2 id="ads-preview-heading">${A.previewHeading}</h2>
  <p class="field__hint">${note}</p>
  <div class="ads-preview__body">
    <div class="phone" role="img" aria-label="${A.previewHeading}">
      ${config.banner.position === 'top' ? banner : null}
      <div class="phone__page">
        <p class="phone__title">${A.previewPage}</p>
        <div class="phone__row"></div>
        ${config.native.enabled ? html`<div class="ad-preview__native" data-ad="native">${A.previewNative}<small>${A.unitLabel(config.native.unit_id)}</small></div>` : null}
        <div class="phone__row"></div>
        <div class="phone__row"></div>
      </div>
      ${config.banner.position === 'bottom' ? banner : null}
    </div>
    <ul class="ads-preview__notes">
      ${anyOn ? null : html`<li data-ad="none">${A.previewOff}</li>`}
      ${config.interstitial.enabled ? html`<li data-ad="interstitial">${A.previewInterstitial(config.interstitial.interval)}${T.paren(A.unitLabel(config.interstitial.unit_id))}</li>` : null}
      ${config.rewarded.enabled ? html`<li data-ad="rewarded">${A.previewRewarded}${T.paren(A.unitLabel(config.rewarded.unit_id))}</li>` : null}
      ${config.unlock.enabled ? html`<li data-ad="unlock">${A.previewUnlock(config.unlock.duration_minutes)}${config.unlock.features.join('、')}</li>` : null}
    </ul>
  </div>
  <h3>${A.jsonHeading}</h3>
  <pre class="ads-preview__json" tabindex="0">${JSON.stringify(config, null, 2)}</pre>
</section>`;
}

export function renderAdsPage(context: AdminContext, view: { form: AdsForm; errors: readonly FieldError[]; preview: Html | null; notice?: string }): string {
  const { form, errors } = view;
  const text = (name: keyof AdsForm, hint: string, type: 'text' | 'number' = 'text') =>
    field({ name, label: A.fields[name], value: form[name] ?? '', errors, hint, type, maxlength: type === 'text' ? 200 : undefined });
  const member = (name: string, body: Html) => html`<fieldset class="ads-member"><legend>${A.members[name]}</legend><div class="form-grid">${body}</div></fieldset>`;
  return renderAdminPage(context, {
    title: A.title,
    section: 'ads',
    notice: view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : null,
    main: html`<div class="admin-head"><h1>${A.title}</h1></div>
<p class="field__hint">${A.intro}</p>
${errorSummary(errors, A.fields)}
<form class="admin-card" method="post" action="/admin/ads" novalidate>
  ${csrfField(context.session!.csrfToken)}
  ${member('banner', html`${checkbox(form, 'banner.enabled', errors)}${text('banner.unit_id', A.hints.unitId)}${positionSelect(form, errors)}`)}
  ${member('interstitial', html`${checkbox(form, 'interstitial.enabled', errors)}${text('interstitial.unit_id', A.hints.unitId)}${text('interstitial.interval', A.hints.interval, 'number')}`)}
  ${member('rewarded', html`${checkbox(form, 'rewarded.enabled', errors)}${text('rewarded.unit_id', A.hints.unitId)}`)}
  ${member('native', html`${checkbox(form, 'native.enabled', errors)}${text('native.unit_id', A.hints.unitId)}`)}
  ${member(
    'unlock',
    html`${checkbox(form, 'unlock.enabled', errors)}${field({ name: 'unlock.features', label: A.fields['unlock.features'], value: form['unlock.features'] ?? '', errors, hint: A.hints.features, type: 'textarea', wide: true })}${text('unlock.duration_minutes', A.hints.duration, 'number')}`,
  )}
  <div class="actions"><button class="btn btn--quiet" type="submit" name="intent" value="preview">${A.preview}</button><button class="btn" type="submit" name="intent" value="save">${A.save}</button></div>
</form>
${view.preview}`,
  });
}
