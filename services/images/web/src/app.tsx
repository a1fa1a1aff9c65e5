import { Fragment } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, type ApiClient } from './api';
import type { Connection } from './connection';
import { AppContext, type AppContextValue, type NoticeAction, type NoticeKind } from './app-context';
import { Modal } from './components/modal';
import { UploadStatus } from './components/upload-status';
import { saveLang, savedLang, serviceMessage, translator, type Lang, type MessageKey } from './i18n';
import { AccountPage } from './pages/account';
import { AdminPage } from './pages/admin';
import { BinPage } from './pages/bin';
import { CategoriesPage } from './pages/categories';
import { ConnectPage } from './pages/connect';
import { GalleryPage } from './pages/gallery';
import { NotFoundPage } from './pages/not-found';
import { SignInPage } from './pages/sign-in';
import { UploadPage } from './pages/upload';
import { followLink, hrefOf, navigate, useRoute, type RouteName } from './router';
import { keepDraft, restoreDraft, returnPathOf, signInHrefFrom } from './resume';
import type { SessionStore } from './session';
import { useTheme } from './theme';
import { createUploadQueue } from './upload-queue';

interface Notice {
  id: number;
  message: string;
  kind: NoticeKind;
  action?: NoticeAction;
}

interface PendingConfirm {
  message: string;
  confirmLabel?: string;
  danger?: boolean;
  resolve(answer: boolean): void;
}

const TITLES: Record<RouteName, MessageKey> = {
  gallery: 'galleryTitle',
  upload: 'uploadTitle',
  bin: 'binTitle',
  categories: 'categoriesTitle',
  account: 'accountTitle',
  connect: 'connectTitle',
  admin: 'adminTitle',
  'sign-in': 'signInTitle',
  register: 'registerTitle',
  'not-found': 'notFoundTitle',
};

const NAV: Array<{ route: 'upload' | 'gallery' | 'bin' | 'categories' | 'account' | 'connect' | 'admin'; label: MessageKey; adminOnly?: boolean }> = [
  { route: 'upload', label: 'navUpload' },
  { route: 'gallery', label: 'navGallery' },
  { route: 'categories', label: 'navCategories' },
  { route: 'bin', label: 'navBin' },
  { route: 'account', label: 'navAccount' },
  { route: 'connect', label: 'navConnect' },
  { route: 'admin', label: 'navAdmin', adminOnly: true },
];

export function App({ api, sessions, storage, connection }: { api: ApiClient; sessions: SessionStore; storage: Storage | null; connection: Connection }) {
  const route = useRoute();
  const [link, setLink] = useState(connection.get());
  useEffect(() => connection.subscribe(() => setLink(connection.get())), [connection]);
  const [session, setSession] = useState(sessions.get());
  const [lang, setLangState] = useState<Lang>(() => savedLang(storage));
  const { theme, toggle: toggleTheme } = useTheme(storage);
  const [notices, setNotices] = useState<Notice[]>([]);
  const [pending, setPending] = useState<PendingConfirm | null>(null);
  const nextNotice = useRef(1);
  const hadSession = useRef(session !== null);
  /** Why the next sign-in redirect happens: the session ended (say so, come back after), or the user signed out (start afresh). */
  const leaving = useRef<'ended' | 'signed-out' | null>(null);
  const mainRef = useRef<HTMLElement>(null);

  const uploads = useMemo(() => createUploadQueue(api), [api]);
  const t = useMemo(() => translator(lang), [lang]);
  const said = useCallback((message: string) => serviceMessage(lang, message), [lang]);

  const notify = useCallback((message: string, kind: NoticeKind = 'info', action?: NoticeAction) => {
    const id = nextNotice.current++;
    setNotices((list) => [...list.slice(-3), { id, message, kind, action }]);
    window.setTimeout(() => setNotices((list) => list.filter((notice) => notice.id !== id)), action ? 10000 : kind === 'error' ? 8000 : 4000);
  }, []);
  const fail = useCallback((error: unknown) => notify(said(error instanceof ApiError ? error.message : String(error)), 'error'), [notify, said]);
  const confirm = useCallback(
    (message: string, options: { confirmLabel?: string; danger?: boolean } = {}) => new Promise<boolean>((resolve) => setPending({ message, ...options, resolve })),
    [],
  );

  useEffect(
    () =>
      sessions.subscribe(() => {
        const next = sessions.get();
        // The service stopped accepting the credential (expired, reset, signed out elsewhere): what
        // was typed on this page is kept for when the user is back (the sign-in page says why).
        if (next === null && hadSession.current) {
          leaving.current = 'ended';
          const user = session?.user.username;
          if (user) keepDraft(mainRef.current, user, location.pathname + location.search);
        }
        hadSession.current = next !== null;
        // Another user's queue is not this one's: it stops with the session.
        if (next === null) uploads.reset();
        setSession(next);
      }),
    [sessions, session, uploads],
  );

  const setLang = useCallback(
    (next: Lang) => {
      saveLang(storage, next);
      setLangState(next);
    },
    [storage],
  );

  // The site's name, when an admin (or SITE_NAME) set one; otherwise the app's own, in the chosen language.
  const [siteName, setSiteName] = useState<string | null>(null);
  useEffect(() => {
    api.features().then(
      (features) => setSiteName(features.site_name),
      () => undefined,
    );
  }, [api]);
  const appName = siteName ?? t('appName');

  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = `${t(TITLES[route])} · ${appName}`;
  }, [lang, route, t, appName]);

  // Signed-out visitors see the sign-in page; signed-in ones never do.
  const needsSession = route !== 'sign-in' && route !== 'register' && route !== 'not-found';
  // The sign-in URL keeps where the visitor was (not after signing out), and signing in goes back there.
  useEffect(() => {
    if (!session && needsSession) {
      const why = leaving.current;
      leaving.current = null;
      navigate(why === 'signed-out' ? hrefOf('sign-in') : signInHrefFrom(location.pathname + location.search, why === 'ended'), { replace: true });
    } else if (session && (route === 'sign-in' || route === 'register')) navigate(returnPathOf(location.search), { replace: true });
  }, [session, needsSession, route]);

  // Back after the session ended: what was typed there is put back as the page's fields appear.
  useEffect(() => (session ? restoreDraft(mainRef.current, session.user.username, location.pathname + location.search) : undefined), [session, route]);

  // After a page change, focus moves to the new page's content, as a full page load would put it.
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    // The previous page's notices are about that page.
    setNotices([]);
    window.scrollTo(0, 0);
    mainRef.current?.focus({ preventScroll: true });
  }, [route]);

  const value: AppContextValue = { api, sessions, session, lang, setLang, t, said, notify, fail, confirm, uploads };

  const signOut = async () => {
    hadSession.current = false;
    leaving.current = 'signed-out';
    try {
      await api.logout();
    } catch {
      // the session is forgotten here whatever the service said
    }
    sessions.clear();
  };

  const page = (() => {
    if (route === 'not-found') return <NotFoundPage />;
    if (!session) return route === 'register' ? <SignInPage mode="register" /> : <SignInPage mode="sign-in" />;
    // Signed in on the sign-in page: nothing until the redirect to where the user was (a page mounted
    // now would read the sign-in URL's query as its own).
    if (route === 'sign-in' || route === 'register') return null;
    switch (route) {
      case 'upload':
        return <UploadPage />;
      case 'bin':
        return <BinPage />;
      case 'categories':
        return <CategoriesPage />;
      case 'account':
        return <AccountPage />;
      case 'connect':
        return <ConnectPage />;
      case 'admin':
        return session.user.is_admin ? <AdminPage /> : <NotFoundPage />;
      default:
        return <GalleryPage />;
    }
  })();

  return (
    <AppContext.Provider value={value}>
      <a class="skip-link" href="#main">
        {t('skipToContent')}
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <a class="brand" href={hrefOf('gallery')} onClick={followLink}>
            <span class="brand-mark" aria-hidden="true" />
            <span>{appName}</span>
          </a>
          {session ? (
            <nav class="nav" aria-label={t('mainNav')}>
              <ul>
                {NAV.filter((item) => !item.adminOnly || session.user.is_admin).map((item) => (
                  <li key={item.route}>
                    <a href={hrefOf(item.route)} onClick={followLink} aria-current={route === item.route ? 'page' : undefined} class={`nav-link nav-${item.route}`}>
                      <span class={`nav-icon icon-${item.route}`} aria-hidden="true" />
                      <span>{t(item.label)}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : (
            <span class="nav-spacer" />
          )}
          <div class="topbar-tools">
            {session && route !== 'upload' ? <UploadStatus /> : null}
            <button type="button" class="button ghost small theme-toggle" aria-pressed={theme === 'dark'} onClick={toggleTheme}>
              <span class="theme-icon" aria-hidden="true" />
              <span class="visually-hidden">{t('darkMode')}</span>
            </button>
            <button type="button" class="button ghost small" lang={lang === 'zh' ? 'en' : 'zh-CN'} aria-label={t('switchLanguageLabel')} onClick={() => setLang(lang === 'zh' ? 'en' : 'zh')}>
              {t('switchLanguage')}
            </button>
            {session ? (
              <div class="user-chip">
                <span class="avatar" aria-hidden="true">
                  {session.user.username.slice(0, 1).toUpperCase()}
                </span>
                <span class="user-name" title={t('signedInAs', { name: session.user.username })}>
                  {session.user.username}
                </span>
                <button type="button" class="button ghost small" onClick={signOut}>
                  {t('signOut')}
                </button>
              </div>
            ) : null}
          </div>
        </div>
      </header>
      {link.online ? null : (
        <div class="connection-lost" role="alert">
          {t('connectionLost')}
        </div>
      )}
      <main id="main" ref={mainRef} tabIndex={-1} class={session ? 'main' : 'main centered'}>
        {/* Loaded afresh when the connection comes back after its data failed to load. */}
        <Fragment key={link.reloads}>{page}</Fragment>
      </main>
      <div class="notices" role="status" aria-live="polite">
        {notices.map((notice) => (
          <div key={notice.id} class={`notice ${notice.kind}`}>
            <span>{notice.message}</span>
            {notice.action ? (
              <button
                type="button"
                class="notice-action"
                onClick={() => {
                  setNotices((list) => list.filter((item) => item.id !== notice.id));
                  notice.action!.run();
                }}
              >
                {notice.action.label}
              </button>
            ) : null}
            <button type="button" class="notice-close" aria-label={t('close')} onClick={() => setNotices((list) => list.filter((item) => item.id !== notice.id))}>
              <span aria-hidden="true">×</span>
            </button>
          </div>
        ))}
      </div>
      {pending ? (
        <Modal
          title={t('confirm')}
          onClose={() => {
            pending.resolve(false);
            setPending(null);
          }}
          footer={
            <>
              <button
                type="button"
                class="button secondary"
                onClick={() => {
                  pending.resolve(false);
                  setPending(null);
                }}
              >
                {t('cancel')}
              </button>
              <button
                type="button"
                class={pending.danger ? 'button danger' : 'button primary'}
                data-confirm
                onClick={() => {
                  pending.resolve(true);
                  setPending(null);
                }}
              >
                {pending.confirmLabel ?? t('confirm')}
              </button>
            </>
          }
        >
          <p>{pending.message}</p>
        </Modal>
      ) : null}
    </AppContext.Provider>
  );
}
