import { useEffect, useId, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { useApp } from '../app-context';
import { followLink, hrefOf, useUrlQuery } from '../router';

/** Sign in, or register when the service allows it (`features`). */
export function SignInPage({ mode }: { mode: 'sign-in' | 'register' }) {
  const { api, sessions, t, said } = useApp();
  const id = useId();
  const [registration, setRegistration] = useState(false);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Sent here because the session ended (resume.ts): said here, where the user now is.
  const ended = useUrlQuery().get('ended') === '1';

  useEffect(() => {
    api.features().then(
      (features) => setRegistration(features.registration),
      () => setRegistration(false),
    );
  }, [api]);
  useEffect(() => setError(null), [mode]);

  const registering = mode === 'register' && registration;
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const signedIn = registering ? await api.register(username.trim(), password) : await api.login(username.trim(), password);
      sessions.set(signedIn);
    } catch (caught) {
      setError(said(caught instanceof ApiError ? caught.message : String(caught)));
      setBusy(false);
    }
  };

  return (
    <section class="auth-card" aria-labelledby={`${id}-title`}>
      <div class="auth-brand" aria-hidden="true">
        <span class="brand-mark large" />
      </div>
      <h1 id={`${id}-title`}>{registering ? t('registerTitle') : t('signInTitle')}</h1>
      <p class="muted">{t('signInLead')}</p>
      {ended && !registering ? (
        <p class="callout session-ended" role="alert">
          {t('sessionEnded')}
        </p>
      ) : null}
      <form class="form" onSubmit={submit} noValidate>
        <div class="field">
          <label for={`${id}-user`}>{t('username')}</label>
          <input
            id={`${id}-user`}
            class="input"
            name="username"
            autoComplete="username"
            autoCapitalize="none"
            spellcheck={false}
            required
            value={username}
            onInput={(event) => setUsername(event.currentTarget.value)}
            aria-describedby={registering ? `${id}-user-hint` : undefined}
          />
          {registering ? (
            <p id={`${id}-user-hint`} class="hint">
              {t('usernameHint')}
            </p>
          ) : null}
        </div>
        <div class="field">
          <label for={`${id}-password`}>{t('password')}</label>
          <input
            id={`${id}-password`}
            class="input"
            type="password"
            name="password"
            autoComplete={registering ? 'new-password' : 'current-password'}
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
            aria-describedby={registering ? `${id}-password-hint` : undefined}
          />
          {registering ? (
            <p id={`${id}-password-hint`} class="hint">
              {t('passwordHint')}
            </p>
          ) : null}
        </div>
        {error ? (
          <p class="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" class="button primary block" disabled={busy || !username.trim() || !password}>
          {registering ? t('registerButton') : t('signInButton')}
        </button>
      </form>
      {registration ? (
        <p class="auth-switch">
          {registering ? t('haveAccount') : t('noAccount')}{' '}
          <a href={hrefOf(registering ? 'sign-in' : 'register')} onClick={followLink}>
            {registering ? t('goSignIn') : t('goRegister')}
          </a>
        </p>
      ) : null}
    </section>
  );
}
