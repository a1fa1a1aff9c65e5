import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { requestLog } from '@platform/kit';
import type { CatalogEdits } from '../catalog/catalog-edits';
import type { CatalogEditor } from '../catalog/catalog-editor';
import type { EditorAuth, EditorSession } from '../editors/editor-auth';
import { AppError } from '../errors/app-error';
import type { SiteAssets } from '../site/site-assets';
import { renderMessagePage, renderSignIn, type AdminContext } from './admin-layout';
import {
  clearCookie,
  cookieOf,
  safeNext,
  SESSION_COOKIE,
  sessionTokenMatches,
  setSessionCookie,
  SIGN_IN_COOKIE,
  signInToken,
  signInTokenMatches,
} from './admin-session';
import { ADMIN_TEXT as T } from './admin-text';
import { enterAdminLang, setLangCookie } from './admin-lang';
import { THEME_BOOT_HASH } from '../site/theme';
import type { AdsService } from '../ads/ads-service';
import { createAdsAdminRoutes } from './ads-admin-routes';
import { createCatalogAdminRoutes } from './catalog-admin-routes';
import { createKeysAdminRoutes, type KeysAdminDeps } from './keys-admin-routes';
import { createIconAdminRoutes, ICON_FILE_PATH, iconUploadParser } from './icon-admin-routes';
import { createLinkHealthRoutes } from './link-health-routes';
import type { OutboundAdmin } from './outbound-admin';
import type { SubmissionsService } from '../submissions/submissions-service';
import { createSubmissionsAdminRoutes } from './submissions-admin-routes';
import { createImportAdminRoutes, IMPORT_UPLOAD_PATH, importUploadParser } from './import-admin-routes';
import type { ImportService } from '../imports/import-service';
import type { CatalogExport } from '../catalog/export-repository';

/**
 * The admin's pages allow what the site's do (scripts from our origin and the one inline theme script by its
 * hash, no inline style), and no framing, caching or indexing.
 */
const ADMIN_HEADERS = {
  'Content-Security-Policy': `default-src 'none'; script-src 'self' ${THEME_BOOT_HASH}; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

const ADMIN_CSS = readFileSync(path.join(__dirname, 'assets', 'admin.css'));
const ADMIN_CSS_NAME = `admin.${createHash('sha256').update(ADMIN_CSS).digest('hex').slice(0, 12)}.css`;

export interface AdminRoutesDeps {
  auth: EditorAuth;
  editor: CatalogEditor;
  edits: CatalogEdits;
  siteAssets: SiteAssets;
  keys: KeysAdminDeps;
  outbound: OutboundAdmin;
  submissions: SubmissionsService;
  ads: AdsService;
  imports: ImportService;
  readCatalog: () => Promise<CatalogExport>;
}

const sessionOf = (res: Response) => res.locals.editorSession as EditorSession | undefined;

/** The editors' web admin, mounted at /admin: sign-in, then tools and categories. Server-rendered; no script needed. */
export function createAdminRoutes(deps: AdminRoutesDeps): Router {
  const { auth } = deps;
  const router = Router();
  const contextOf = (res: Response): AdminContext => {
    const session = sessionOf(res);
    return {
      siteAssets: deps.siteAssets,
      adminCssUrl: `/admin/assets/${ADMIN_CSS_NAME}`,
      session: session ? { editorName: session.editor.name, csrfToken: session.csrfToken } : undefined,
      pendingSubmissions: res.locals.pendingSubmissions as number | undefined,
      path: res.req.method === 'GET' ? res.req.originalUrl : undefined,
    };
  };
  const send = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);
  const signInPage = (req: Request, res: Response, status: number, form: { name?: string; next?: string; error?: string }) =>
    send(res, status, renderSignIn(contextOf(res), { csrfToken: signInToken(req, res), name: form.name ?? '', next: safeNext(form.next), error: form.error }));

  router.use((_req, res, next) => {
    res.locals.metricsRoute = 'admin';
    res.set(ADMIN_HEADERS);
    next();
  });
  router.use(enterAdminLang);

  // The language switch (a link, so it works signed out and without script): the pick kept, then back where it was.
  router.get('/lang', (req, res) => {
    const to = req.query.to === 'en' ? 'en' : 'zh';
    setLangCookie(req, res, to);
    const next = typeof req.query.next === 'string' ? req.query.next : '';
    res.redirect(303, safeNext(next));
  });

  router.get('/assets/:file', (req, res) => {
    if (req.params.file !== ADMIN_CSS_NAME) {
      res.status(404).type('text').send('Not found\n');
      return;
    }
    res.set('Cache-Control', 'public, max-age=31536000, immutable').type('css').send(ADMIN_CSS);
  });

  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 }));
  router.use(enterAdminLang);
  router.use(async (req, res, next) => {
    res.locals.editorSession = await auth.authenticate(cookieOf(req, SESSION_COOKIE));
    next();
  });

  router.get('/', (req, res) => {
    if (sessionOf(res)) res.redirect(303, '/admin/tools');
    else signInPage(req, res, 200, { next: typeof req.query.next === 'string' ? req.query.next : undefined });
  });

  router.post('/sign-in', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.slice(0, 64) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 256) : '';
    const next = typeof body.next === 'string' ? body.next : undefined;
    if (!signInTokenMatches(req)) {
      signInPage(req, res, 403, { name, next, error: T.formExpired });
      return;
    }
    if (name.trim() === '' || password === '') {
      signInPage(req, res, 401, { name, next, error: T.invalidCredentials });
      return;
    }
    const outcome = await auth.signIn({ name, password, address: req.ip ?? 'unknown' });
    if (outcome.kind === 'throttled') {
      res.set('Retry-After', String(outcome.retryAfterSeconds));
      signInPage(req, res, 429, { name, next, error: T.throttled(outcome.retryAfterSeconds) });
      return;
    }
    if (outcome.kind === 'invalid') {
      signInPage(req, res, 401, { name, next, error: T.invalidCredentials });
      return;
    }
    setSessionCookie(req, res, outcome.token, outcome.expiresAt);
    clearCookie(req, res, SIGN_IN_COOKIE);
    requestLog(req)?.info({ editor: outcome.editor.id }, 'editor signed in');
    // Housekeeping rides on sign-ins: they are rare, and the rows it drops are few.
    await auth.removeExpired();
    res.redirect(303, safeNext(next));
  });

  router.post(ICON_FILE_PATH, iconUploadParser((res) => sessionOf(res) !== undefined));
  router.post(IMPORT_UPLOAD_PATH, importUploadParser((res) => sessionOf(res) !== undefined));
  router.post([ICON_FILE_PATH, IMPORT_UPLOAD_PATH], enterAdminLang);

  // Everything below is for a signed-in editor; a POST must also carry the session's form token.
  router.use((req, res, next) => {
    const session = sessionOf(res);
    if (!session) {
      const back = req.method === 'GET' ? `?next=${encodeURIComponent(req.originalUrl)}` : '';
      res.redirect(303, `/admin/${back}`);
      return;
    }
    if (req.method === 'POST' && !sessionTokenMatches(req, session)) {
      send(res, 403, renderMessagePage(contextOf(res), T.formExpiredTitle, T.formExpired));
      return;
    }
    next();
  });
  router.use(async (_req, res, next) => { res.locals.pendingSubmissions = await deps.submissions.repository.countPending(); next(); }); // the nav's 投稿 count

  router.post('/sign-out', async (req, res) => {
    await auth.signOut(sessionOf(res)!);
    clearCookie(req, res, SESSION_COOKIE);
    res.redirect(303, '/admin/');
  });

  const icons = createIconAdminRoutes({ outbound: deps.outbound, edits: deps.edits, contextOf });
  router.use(icons.router);
  router.use(createCatalogAdminRoutes({ editor: deps.editor, edits: deps.edits, contextOf, iconPanel: icons.panelFor, refetchIcon: (slug) => void deps.outbound.refetchIconSoon(slug) }));
  router.use(createLinkHealthRoutes({ outbound: deps.outbound, contextOf }));
  router.use(createKeysAdminRoutes({ ...deps.keys, contextOf }));
  router.use(createAdsAdminRoutes({ ads: deps.ads, contextOf }));
  router.use(createSubmissionsAdminRoutes({ submissions: deps.submissions, editor: deps.editor, edits: deps.edits, contextOf }));
  router.use(createImportAdminRoutes({ imports: deps.imports, readCatalog: deps.readCatalog, contextOf }));

  router.use((_req, res) => {
    send(res, 404, renderMessagePage(contextOf(res), T.notFoundTitle, T.notFoundText));
  });

  const errorPage: ErrorRequestHandler = (error, req, res, _next) => {
    const status = (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode;
    if (error instanceof AppError && error.status === 404) send(res, 404, renderMessagePage(contextOf(res), T.notFoundTitle, T.notFoundText));
    else if (status === 413) send(res, 413, renderMessagePage(contextOf(res), T.errorTitle, T.tooLargeText));
    else if (status === 400 || status === 415) send(res, 400, renderMessagePage(contextOf(res), T.errorTitle, T.formExpired));
    else {
      requestLog(req)?.error({ err: error }, 'unexpected fault');
      send(res, 500, renderMessagePage(contextOf(res), T.errorTitle, T.errorText));
    }
  };
  router.use(errorPage);
  return router;
}
