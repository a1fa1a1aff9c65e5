import { adsConfigSchema, type AdsConfig } from '../ads/ads-config';
import type { FieldError } from './admin-layout';
import { ADS_TEXT as A } from './ads-text';

/** The ads form's fields, named `<member>.<field>` as the config's paths (the field ids replace the dot). */
export const ADS_FORM_FIELDS = [
  'banner.unit_id', 'banner.enabled', 'banner.position',
  'interstitial.unit_id', 'interstitial.enabled', 'interstitial.interval',
  'rewarded.unit_id', 'rewarded.enabled',
  'native.unit_id', 'native.enabled',
  'unlock.enabled', 'unlock.features', 'unlock.duration_minutes',
] as const;

export type AdsForm = Partial<Record<(typeof ADS_FORM_FIELDS)[number], string>>;

const AD_MEMBERS = ['banner', 'interstitial', 'rewarded', 'native'] as const;

/** The stored config as the form shows it. */
export function adsFormOf(config: AdsConfig): AdsForm {
  const form: AdsForm = {};
  for (const member of AD_MEMBERS) {
    form[`${member}.unit_id`] = config[member].unit_id;
    if (config[member].enabled) form[`${member}.enabled`] = 'on';
  }
  form['banner.position'] = config.banner.position;
  form['interstitial.interval'] = String(config.interstitial.interval);
  if (config.unlock.enabled) form['unlock.enabled'] = 'on';
  form['unlock.features'] = config.unlock.features.join('\n');
  form['unlock.duration_minutes'] = String(config.unlock.duration_minutes);
  return form;
}

/** A whole number as typed, or the text itself for the schema to refuse. */
const integer = (raw: string | undefined): number | string => {
  const text = (raw ?? '').trim();
  return /^-?\d{1,9}$/.test(text) ? Number(text) : text;
};

/**
 * The form as a config, checked by the same schema as the CLI's ads:set, plus one rule of the form's own: an
 * ad switched on needs its unit id (the mini-program would otherwise ask the ad network for nothing).
 * Each refusal is named at its field, in the admin's words.
 */
export function parseAdsForm(form: AdsForm): { config: AdsConfig } | { errors: FieldError[] } {
  const value = (name: keyof AdsForm) => (form[name] ?? '').trim();
  const on = (name: keyof AdsForm) => form[name] === 'on';
  const candidate = {
    banner: { unit_id: value('banner.unit_id'), enabled: on('banner.enabled'), position: value('banner.position') },
    interstitial: { unit_id: value('interstitial.unit_id'), enabled: on('interstitial.enabled'), interval: integer(form['interstitial.interval']) },
    rewarded: { unit_id: value('rewarded.unit_id'), enabled: on('rewarded.enabled') },
    native: { unit_id: value('native.unit_id'), enabled: on('native.enabled') },
    unlock: {
      enabled: on('unlock.enabled'),
      features: (form['unlock.features'] ?? '').split(/[,，\n]/).map((feature) => feature.trim()).filter((feature) => feature !== ''),
      duration_minutes: integer(form['unlock.duration_minutes']),
    },
  };
  const errors: FieldError[] = [];
  const add = (field: string, message: string) => {
    if (!errors.some((error) => error.field === field)) errors.push({ field, message });
  };
  const parsed = adsConfigSchema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [member, name] = issue.path.map(String);
      const field = name === undefined ? String(member) : `${member}.${name}`;
      add(field, A.messages[`${member}.${name}`] ?? A.invalidValue);
    }
  }
  for (const member of AD_MEMBERS) {
    if (candidate[member].enabled && candidate[member].unit_id === '') add(`${member}.unit_id`, A.unitIdRequired);
  }
  if (candidate.unlock.enabled && !candidate.rewarded.enabled) add('unlock.enabled', A.unlockNeedsRewarded);
  if (errors.length > 0 || !parsed.success) return { errors: errors.length > 0 ? errors : [{ field: 'form', message: A.invalidValue }] };
  return { config: parsed.data };
}
