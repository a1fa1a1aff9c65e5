import { useId, useState } from 'preact/hooks';
import type { Category, ShareLink } from '../api';
import { useApp } from '../app-context';
import type { MessageKey } from '../i18n';
import { useLoaded } from '../use-loaded';
import { usePending } from '../use-pending';
import { CopyButton } from './copy-button';
import { Modal } from './modal';

const EXPIRY_CHOICES: Array<{ hours: number | undefined; label: MessageKey }> = [
  { hours: undefined, label: 'shareExpiryNever' },
  { hours: 24, label: 'shareExpiryDay' },
  { hours: 24 * 7, label: 'shareExpiryWeek' },
  { hours: 24 * 30, label: 'shareExpiryMonth' },
];

const STATE_LABELS: Record<ShareLink['state'], MessageKey> = {
  active: 'shareStateActive',
  revoked: 'shareStateRevoked',
  expired: 'shareStateExpired',
  used_up: 'shareStateUsedUp',
};

/** The share dialog of a category: create a link (password, expiry, view limit), copy it, revoke it. */
export function ShareAlbum({ category, onClose, onChanged }: { category: Category; onClose(): void; onChanged?(): void }) {
  const { api, t, notify, fail, confirm } = useApp();
  const id = useId();
  const [password, setPassword] = useState('');
  const [expiry, setExpiry] = useState(0);
  const [maxViews, setMaxViews] = useState('');
  const [pagesPublic, setPagesPublic] = useState(category.pages_public);
  const [pagesBusy, setPagesBusy] = useState(false);

  const [links, load] = useLoaded(() => api.shareLinks(category.id), [api, category.id]);

  const creating = usePending();
  const create = creating.submit(async () => {
    await api.createShareLink({
      category_id: category.id,
      password: password === '' ? undefined : password,
      expires_in_hours: EXPIRY_CHOICES[expiry]!.hours,
      max_views: maxViews.trim() === '' ? undefined : Number(maxViews),
    });
    notify(t('shareLinkCreatedNotice'), 'success');
    setPassword('');
    setMaxViews('');
    await load();
  });
  const revoke = async (link: ShareLink) => {
    if (!(await confirm(t('confirmRevokeShare'), { confirmLabel: t('shareRevoke'), danger: true }))) return;
    try {
      await api.revokeShareLink(link.id);
      notify(t('shareRevoked'), 'success');
      await load();
    } catch (error) {
      fail(error);
    }
  };

  // The album's public image pages: the box follows the click at once; a refusal puts it back.
  const togglePages = async (on: boolean) => {
    setPagesBusy(true);
    setPagesPublic(on);
    try {
      await api.setAlbumPages(category.id, on);
      notify(t(on ? 'albumPagesOnNotice' : 'albumPagesOffNotice'), 'success');
      onChanged?.();
    } catch (error) {
      setPagesPublic(!on);
      fail(error);
    } finally {
      setPagesBusy(false);
    }
  };

  return (
    <Modal title={t('shareAlbum', { name: category.name })} onClose={onClose} wide>
      <div class="album-pages">
        <label class="checkbox">
          <input type="checkbox" checked={pagesPublic} disabled={pagesBusy} onChange={(event) => void togglePages(event.currentTarget.checked)} />
          <span>{t('albumPagesToggle')}</span>
        </label>
        <p class="muted small-text">{t('albumPagesHint')}</p>
      </div>
      <form class="share-form" onSubmit={create}>
        <div class="field">
          <label for={`${id}-password`}>{t('sharePassword')}</label>
          <input id={`${id}-password`} class="input" type="password" autoComplete="new-password" minLength={8} maxLength={128} value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-expiry`}>{t('shareExpiry')}</label>
          <select id={`${id}-expiry`} class="input" value={String(expiry)} onChange={(event) => setExpiry(Number(event.currentTarget.value))}>
            {EXPIRY_CHOICES.map((choice, index) => (
              <option key={choice.label} value={String(index)}>
                {t(choice.label)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-views`}>{t('shareMaxViews')}</label>
          <input id={`${id}-views`} class="input" type="number" min="1" max="1000000" step="1" value={maxViews} onInput={(event) => setMaxViews(event.currentTarget.value)} />
        </div>
        <button type="submit" class="button primary" disabled={creating.pending}>
          {t('shareCreate')}
        </button>
      </form>
      <h3 class="share-list-title">{t('shareLinks')}</h3>
      {links === null ? (
        <p class="muted" role="status">
          {t('loading')}
        </p>
      ) : links.length === 0 ? (
        <p class="muted">{t('shareNone')}</p>
      ) : (
        <ul class="share-links" aria-label={t('shareLinks')}>
          {links.map((link, index) => {
            const n = links.length - index;
            return (
              <li key={link.id} class="share-link" data-share-id={link.id} data-state={link.state}>
                <div class="link-row">
                  <label for={`${id}-link-${link.id}`}>{t('shareLinkLabel', { n })}</label>
                  <input id={`${id}-link-${link.id}`} class="input mono" type="text" readOnly value={link.url} onFocus={(event) => event.currentTarget.select()} />
                  <CopyButton text={link.url} label={t('copyShareLink', { n })} />
                </div>
                <p class="share-facts small-text">
                  <span class={link.state === 'active' ? 'badge' : 'badge muted'}>{t(STATE_LABELS[link.state])}</span>{' '}
                  {link.max_views === null ? t('shareViews', { n: link.view_count }) : t('shareViewsOf', { n: link.view_count, max: link.max_views })}
                  {link.expire_time ? ` · ${t('shareExpires', { time: link.expire_time })}` : ''}
                  {link.has_password ? ` · ${t('shareHasPassword')}` : ''}
                  {link.state === 'revoked' ? null : (
                    <button type="button" class="button danger-ghost small" aria-label={t('shareRevokeLabel', { n })} onClick={() => void revoke(link)}>
                      {t('shareRevoke')}
                    </button>
                  )}
                </p>
              </li>
            );
          })}
        </ul>
      )}
    </Modal>
  );
}
