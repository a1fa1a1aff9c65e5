import { useEffect, useId, useState } from 'preact/hooks';
import type { Group, SiteSettings } from '../../api';
import { useApp } from '../../app-context';
import { usePending } from '../../use-pending';

/**
 * The admin's site settings: site name, registration, the group of new users. A setting an environment
 * variable fixes is shown with its value, read-only, and says which variable fixes it.
 */
export function SettingsPanel({ groups }: { groups: Group[] }) {
  const { api, t, notify, fail } = useApp();
  const id = useId();
  const [settings, setSettings] = useState<SiteSettings | null>(null);
  const [siteName, setSiteName] = useState('');
  const [registration, setRegistration] = useState(false);
  const [groupName, setGroupName] = useState('');
  const saving = usePending();

  const show = (loaded: SiteSettings) => {
    setSettings(loaded);
    setSiteName(loaded.site_name ?? '');
    setRegistration(loaded.registration_enabled);
    setGroupName(loaded.default_group);
  };
  useEffect(() => {
    api.adminSettings().then(show, fail);
  }, [api, fail]);

  if (!settings) {
    return (
      <p class="muted" role="status">
        {t('loading')}
      </p>
    );
  }
  const fixed = settings.fixed_by_env;
  const save = saving.submit(async () => {
    // Only what admins may edit is sent: a fixed setting would refuse the whole change.
    const changes: { site_name?: string; registration_enabled?: boolean; default_group_id?: number } = {};
    if (!fixed.site_name) changes.site_name = siteName.trim();
    if (!fixed.registration_enabled) changes.registration_enabled = registration;
    if (!fixed.default_group) changes.default_group_id = groups.find((group) => group.name === groupName)?.id;
    show(await api.adminUpdateSettings(changes));
    notify(t('settingsSaved'), 'success');
  });
  const fixedNote = (name: string | null, noteId: string) =>
    name ? (
      <p id={noteId} class="hint form-note" data-fixed-by={name}>
        {t('fixedByEnv', { name })}
      </p>
    ) : null;
  const everyFixed = Boolean(fixed.site_name && fixed.registration_enabled && fixed.default_group);

  return (
    <form class="card-panel settings-form" onSubmit={save} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} class="form-title">
        {t('siteSettings')}
      </h2>
      <div class="field">
        <label for={`${id}-name`}>{t('siteName')}</label>
        <input
          id={`${id}-name`}
          class="input"
          maxLength={64}
          placeholder={t('siteNameHint')}
          value={siteName}
          readOnly={Boolean(fixed.site_name)}
          aria-describedby={fixed.site_name ? `${id}-name-fixed` : undefined}
          onInput={(event) => setSiteName(event.currentTarget.value)}
        />
        {fixedNote(fixed.site_name, `${id}-name-fixed`)}
      </div>
      <div class="field">
        <label class="checkbox">
          <input
            type="checkbox"
            checked={registration}
            disabled={Boolean(fixed.registration_enabled)}
            aria-describedby={fixed.registration_enabled ? `${id}-registration-fixed` : undefined}
            onChange={(event) => setRegistration(event.currentTarget.checked)}
          />
          <span>{t('registrationOpen')}</span>
        </label>
        {fixedNote(fixed.registration_enabled, `${id}-registration-fixed`)}
      </div>
      <div class="field">
        <label for={`${id}-group`}>{t('defaultGroup')}</label>
        <select
          id={`${id}-group`}
          class="input"
          value={groupName}
          disabled={Boolean(fixed.default_group)}
          aria-describedby={fixed.default_group ? `${id}-group-fixed` : undefined}
          onChange={(event) => setGroupName(event.currentTarget.value)}
        >
          {/* A group the environment names may not exist (yet): it is shown as it is. */}
          {groups.some((group) => group.name === groupName) ? null : <option value={groupName}>{groupName}</option>}
          {groups.map((group) => (
            <option key={group.id} value={group.name}>
              {group.name}
            </option>
          ))}
        </select>
        {fixedNote(fixed.default_group, `${id}-group-fixed`)}
      </div>
      <button type="submit" class="button primary" disabled={everyFixed || saving.pending}>
        {t('save')}
      </button>
    </form>
  );
}
