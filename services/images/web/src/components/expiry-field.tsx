import { useId, useState } from 'preact/hooks';
import type { ImageItem } from '../api';
import { useApp } from '../app-context';
import { usePending } from '../use-pending';

/** `YYYY-MM-DDTHH:MM` in the viewer's zone, as a datetime-local input holds it. */
function localInputValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The detail dialog's expiry: when the image moves into the bin by itself (set, change, clear). */
export function ExpiryField({ item, onChanged }: { item: ImageItem; onChanged(item: ImageItem): void }) {
  const { api, t, notify, lang } = useApp();
  const id = useId();
  const current = item.expires_at ? new Date(item.expires_at) : null;
  const [value, setValue] = useState(current ? localInputValue(current) : '');
  const saving = usePending();

  const apply = (expiresAt: string | null) => {
    void saving.run(async () => {
      const changed = await api.setExpiry(item.id, expiresAt);
      setValue(changed.expires_at ? localInputValue(new Date(changed.expires_at)) : '');
      notify(t(changed.expires_at ? 'expirySaved' : 'expiryCleared'), 'success');
      onChanged(changed);
    });
  };

  const save = (event: Event) => {
    event.preventDefault();
    const at = new Date(value);
    if (value === '' || Number.isNaN(at.getTime())) return;
    apply(at.toISOString());
  };

  return (
    <form class="inline-form expiry-form" onSubmit={save} data-expiry-form>
      <label for={`${id}-expiry`}>{t('expiryLabel')}</label>
      <input id={`${id}-expiry`} class="input" type="datetime-local" value={value} onInput={(event) => setValue(event.currentTarget.value)} />
      <button type="submit" class="button primary small" disabled={value === '' || saving.pending}>
        {t('expirySave')}
      </button>
      <button type="button" class="button ghost small" disabled={!current || saving.pending} onClick={() => apply(null)}>
        {t('expiryClear')}
      </button>
      <p class="muted expiry-state" data-expiry-state>
        {current ? t('expiresAt', { time: current.toLocaleString(lang === 'en' ? 'en-GB' : 'zh-CN', { timeZoneName: 'short' }) }) : t('expiryNone')}
      </p>
    </form>
  );
}
