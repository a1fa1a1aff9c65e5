import { createHmac } from 'node:crypto';
import cookieParser from 'cookie-parser';
import express, { type Request, type Response } from 'express';
import type { SharingService } from '../sharing/sharing-service';
import { albumPage, goneSharePage, imagePage, missingImagePage, missingSharePage, passwordPage, sharePageHeaders } from './share-pages';

/** Signed cookies, scoped to one link's path: this browser took a view, and gave the link's password. */
const VIEWER_COOKIE = 'share_viewer';
const UNLOCKED_COOKIE = 'share_unlocked';
const COOKIE_MAX_AGE_MS = 365 * 24 * 3_600_000;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** `?page=`: absent is 1; anything but a whole number from 1 to 100000 is null (answered 404). */
function parsePage(value: unknown): number | null {
  if (value === undefined) return 1;
  if (typeof value !== 'string' || !/^[1-9]\d{0,5}$/.test(value)) return null;
  const page = Number(value);
  return page <= 100_000 ? page : null;
}

const pageHref = (token: string, page: number) => (page === 1 ? `/s/${token}` : `/s/${token}?page=${page}`);

/**
 * The public pages of sharing: `/s/<token>` (an album's share link; GET shows it, POST takes its
 * password) and `/p/<key>` (an image's public page). Refusals are pages too (a chat link lands here).
 */
export function createShareRoutes(deps: { sharing: SharingService; publicBaseUrl: string; cookieSecret: string; clock: () => Date }): express.Router {
  const router = express.Router();
  const headers = sharePageHeaders(deps.publicBaseUrl);
  // A key of its own: the signing secret signs thumbnails, and a cookie must never pass for one.
  const secret = createHmac('sha256', deps.cookieSecret).update('share-cookies').digest('hex');
  router.use(['/s', '/p'], cookieParser(secret));

  const send = (res: Response, status: number, html: string) => res.status(status).set(headers).send(html);
  const setCookie = (req: Request, res: Response, name: string, linkId: number) =>
    res.cookie(name, String(linkId), { signed: true, httpOnly: true, sameSite: 'lax', secure: req.secure, path: `/s/${req.params.token}`, maxAge: COOKIE_MAX_AGE_MS });
  const signed = (req: Request, name: string): string | undefined => {
    const value = (req.signedCookies as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value : undefined;
  };

  router.get('/s/:token', async (req, res) => {
    res.locals.metricsRoute = 'share_page';
    const token = String(req.params.token);
    if (!TOKEN_PATTERN.test(token)) return send(res, 404, missingSharePage());
    const page = parsePage(req.query.page);
    if (page === null) return send(res, 404, missingSharePage());
    const outcome = await deps.sharing.open(
      token,
      { viewerOf: signed(req, VIEWER_COOKIE), unlockedFor: signed(req, UNLOCKED_COOKIE), userAgent: req.get('user-agent') ?? '', headOnly: req.method === 'HEAD', page },
      deps.clock(),
    );
    switch (outcome.kind) {
      case 'missing':
        return send(res, 404, missingSharePage());
      case 'gone':
        return send(res, 410, goneSharePage(outcome.state));
      case 'password':
        return send(res, 200, passwordPage(outcome.albumName));
      case 'album':
        if (outcome.newViewer) setCookie(req, res, VIEWER_COOKIE, outcome.linkId);
        return send(res, 200, albumPage(outcome.albumName, outcome.images, outcome.preview, { ...outcome.paging, href: (n) => pageHref(token, n) }));
    }
  });

  router.post('/s/:token', express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 5 }), async (req, res) => {
    res.locals.metricsRoute = 'share_password';
    const token = String(req.params.token);
    if (!TOKEN_PATTERN.test(token)) return send(res, 404, missingSharePage());
    const body = (req.body ?? {}) as Record<string, unknown>;
    const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
    const outcome = await deps.sharing.unlock(token, password, req.ip ?? 'unknown', deps.clock());
    switch (outcome.kind) {
      case 'missing':
        return send(res, 404, missingSharePage());
      case 'gone':
        return send(res, 410, goneSharePage(outcome.state));
      case 'wrong':
        return send(res, 401, passwordPage(outcome.albumName, 'wrong'));
      case 'throttled':
        res.set('Retry-After', String(outcome.retryAfterSeconds));
        return send(res, 429, passwordPage(outcome.albumName, 'throttled'));
      case 'accepted':
        setCookie(req, res, UNLOCKED_COOKIE, outcome.linkId);
        // Post/redirect/get: a reload shows the album, not "resend the form?".
        return res.status(303).set('Cache-Control', 'no-store').location(`/s/${token}`).end();
    }
  });

  router.get('/p/:key', async (req, res) => {
    res.locals.metricsRoute = 'image_page';
    const image = await deps.sharing.publicPage(String(req.params.key));
    if (!image) return send(res, 404, missingImagePage());
    return send(res, 200, imagePage(image));
  });

  return router;
}
