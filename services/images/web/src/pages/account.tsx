import { useEffect, useId, useState } from 'preact/hooks';
import type { AccountToken, NamedToken, Profile } from '../api';
import { useApp } from '../app-context';
import { useLoaded } from '../use-loaded';
import { usePending } from '../use-pending';
import { CopyButton } from '../components/copy-button';
import { FileName } from '../components/file-name';
import { useTimes } from '../components/local-time';
import { UsageBar } from '../components/usage-bar';
import { formatBytes } from '../format';

function mask(token: string): string {
  return `${token.slice(0, 4)}${'•'.repeat(24)}${token.slice(-4)}`;
}

function TokenCard() {
  const { api, t, notify, fail, confirm } = useApp();
  const times = useTimes();
  const id = useId();
  const [token, setToken] = useState<AccountToken | null>(null);
  const [shown, setShown] = useState(false);

  useEffect(() => {
    api.accountToken().then(setToken, fail);
  }, [api, fail]);

  const reset = async () => {
    if (!(await confirm(t('confirmResetToken'), { confirmLabel: t('resetToken'), danger: true }))) return;
    try {
      const fresh = await api.resetToken();
      setToken(fresh);
      setShown(true);
      notify(t('tokenWasReset'), 'success');
    } catch (error) {
      fail(error);
    }
  };

  return (
    <section class="card-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('apiToken')}</h2>
      <p class="muted">{t('apiTokenLead')}</p>
      {token === null ? (
        <p class="muted" role="status">
          {t('loading')}
        </p>
      ) : token.token === null ? (
        <p class="callout">{t('tokenUnavailable')}</p>
      ) : (
        <div class="token-row">
          <label class="visually-hidden" for={`${id}-token`}>
            {t('apiToken')}
          </label>
          <input id={`${id}-token`} class="input mono token-value" readOnly value={shown ? token.token : mask(token.token)} data-masked={shown ? 'false' : 'true'} />
          <button type="button" class="button secondary small" aria-pressed={shown} onClick={() => setShown(!shown)}>
            {shown ? t('hideToken') : t('showToken')}
          </button>
          <CopyButton text={token.token} label={`${t('copy')} ${t('apiToken')}`} />
        </div>
      )}
      <div class="card-foot">
        {token?.create_time ? <span class="muted small-text">{t('tokenCreatedAt', { time: times(token.create_time) })}</span> : <span />}
        <button type="button" class="button danger-ghost small" onClick={reset}>
          {t('resetToken')}
        </button>
      </div>
    </section>
  );
}

function NamedTokensCard() {
  const { api, t, notify, fail, confirm } = useApp();
  const times = useTimes();
  const id = useId();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);

  const [tokens, load] = useLoaded(() => api.namedTokens(), [api]);

  const creating = usePending();
  const create = creating.submit(async () => {
    const made = await api.createNamedToken(name.trim());
    setCreated({ name: made.name, token: made.token });
    setName('');
    void load();
  });
  const revoke = async (token: NamedToken) => {
    if (!(await confirm(t('confirmRevoke', { name: token.name }), { confirmLabel: t('revoke'), danger: true }))) return;
    try {
      await api.revokeNamedToken(token.id);
      notify(t('tokenRevoked'), 'success');
      void load();
    } catch (error) {
      fail(error);
    }
  };

  return (
    <section class="card-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('namedTokens')}</h2>
      <p class="muted">{t('namedTokensLead')}</p>
      <form class="create-form" onSubmit={create}>
        <div class="field grow">
          <label for={`${id}-name`}>{t('tokenName')}</label>
          <input id={`${id}-name`} class="input" value={name} maxLength={64} onInput={(event) => setName(event.currentTarget.value)} />
        </div>
        <button type="submit" class="button secondary" disabled={!name.trim() || creating.pending}>
          {t('createToken')}
        </button>
      </form>
      {created ? (
        <div class="callout success" role="status">
          <p>{t('newTokenOnce', { name: created.name })}</p>
          <div class="token-row">
            <label class="visually-hidden" for={`${id}-created`}>
              {created.name}
            </label>
            <input id={`${id}-created`} class="input mono" readOnly value={created.token} />
            <CopyButton text={created.token} label={`${t('copy')} ${created.name}`} />
          </div>
        </div>
      ) : null}
      {tokens === null ? null : tokens.length === 0 ? (
        <p class="muted empty-line">{t('noNamedTokens')}</p>
      ) : (
        <ul class="token-list">
          {tokens.map((token) => (
            <li key={token.id}>
              <div>
                <FileName name={token.name} class="token-name" />
                <span class="muted small-text">
                  {t('tokenCreatedAt', { time: times(token.create_time) })} · {t('lastUsed')}: {token.last_used_time ? times(token.last_used_time) : t('neverUsed')}
                </span>
              </div>
              <button type="button" class="button danger-ghost small" aria-label={`${t('revoke')} ${token.name}`} onClick={() => revoke(token)}>
                {t('revoke')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ClientsCard({ onDownloaded }: { onDownloaded(): void }) {
  const { api, t, notify } = useApp();
  const id = useId();
  // Each download makes a named token: a double click must not make two.
  const downloading = usePending();
  const download = (client: 'sharex' | 'picgo') =>
    downloading.run(async () => {
      const { fileName, blob } = await api.clientConfig(client);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName;
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 10000);
      notify(t('downloaded', { name: fileName }), 'success');
      onDownloaded();
    });
  return (
    <section class="card-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('uploadClients')}</h2>
      <p class="muted">{t('uploadClientsLead')}</p>
      <div class="button-row">
        <button type="button" class="button secondary" data-client="sharex" disabled={downloading.pending} onClick={() => download('sharex')}>
          {t('downloadSharex')}
        </button>
        <button type="button" class="button secondary" data-client="picgo" disabled={downloading.pending} onClick={() => download('picgo')}>
          {t('downloadPicgo')}
        </button>
      </div>
    </section>
  );
}

function PasswordCard() {
  const { api, session, t, notify } = useApp();
  const id = useId();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const changing = usePending();
  const submit = changing.submit(async () => {
    await api.changePassword(current, next);
    setCurrent('');
    setNext('');
    notify(t('passwordChanged'), 'success');
  });
  return (
    <section class="card-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('changePassword')}</h2>
      <form class="form" onSubmit={submit}>
        {/* Lets password managers tie the new password to this account. */}
        <input type="text" class="visually-hidden" autoComplete="username" tabIndex={-1} aria-hidden="true" value={session?.user.username ?? ''} readOnly />
        <div class="field">
          <label for={`${id}-current`}>{t('currentPassword')}</label>
          <input id={`${id}-current`} class="input" type="password" autoComplete="current-password" value={current} onInput={(event) => setCurrent(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for={`${id}-next`}>{t('newPassword')}</label>
          <input id={`${id}-next`} class="input" type="password" autoComplete="new-password" aria-describedby={`${id}-hint`} value={next} onInput={(event) => setNext(event.currentTarget.value)} />
          <p id={`${id}-hint`} class="hint">
            {t('passwordHint')}
          </p>
        </div>
        <button type="submit" class="button secondary" disabled={!current || !next || changing.pending}>
          {t('changePassword')}
        </button>
      </form>
    </section>
  );
}

export function AccountPage() {
  const { api, t, fail } = useApp();
  const id = useId();
  const [profile, setProfile] = useState<Profile | null>(null);
  const [tokensVersion, setTokensVersion] = useState(0);
  useEffect(() => {
    api.profile().then(setProfile, fail);
  }, [api, fail]);

  return (
    <section class="page" aria-labelledby={`${id}-title`}>
      <div class="page-head">
        <h1 id={`${id}-title`} class="page-title">
          {t('accountTitle')}
        </h1>
      </div>
      <div class="account-grid">
        <section class="card-panel overview" aria-labelledby={`${id}-overview`}>
          <h2 id={`${id}-overview`}>{t('accountOverview')}</h2>
          {profile ? (
            <>
              <div class="profile-head">
                <span class="avatar large" aria-hidden="true">
                  {profile.username.slice(0, 1).toUpperCase()}
                </span>
                <div>
                  <p class="profile-name">{profile.username}</p>
                  {profile.is_admin ? <span class="badge accent first">{t('isAdmin')}</span> : null}
                </div>
              </div>
              <dl class="facts three">
                <div>
                  <dt>{t('group')}</dt>
                  <dd data-fact="group">{profile.group}</dd>
                </div>
                <div>
                  <dt>{t('maxFileSize')}</dt>
                  <dd data-fact="max-file-size">{formatBytes(profile.max_file_size)}</dd>
                </div>
                <div>
                  <dt>{t('binRetention')}</dt>
                  <dd>{t('days', { n: profile.recycle_retention_days })}</dd>
                </div>
              </dl>
              <h3 class="subhead">{t('storage')}</h3>
              <UsageBar used={profile.used_bytes} quota={profile.quota_bytes} />
            </>
          ) : (
            <p class="muted" role="status">
              {t('loading')}
            </p>
          )}
        </section>
        <TokenCard />
        <NamedTokensCard key={tokensVersion} />
        <ClientsCard onDownloaded={() => setTokensVersion((version) => version + 1)} />
        <PasswordCard />
      </div>
    </section>
  );
}
