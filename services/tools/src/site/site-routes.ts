import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { requestLog } from '@platform/kit';
import type { AccessControl } from '../auth/access-control';
import { AppError, notFound } from '../errors/app-error';
import { iconUrl } from '../icons/icon-routes';
import type { PageContext } from './page-layout';
import { renderHome } from './home-page';
import { createLocalizer, NO_TRANSLATIONS } from './localize';
import { renderManifest } from './manifest';
import { renderCategory, renderError, renderSearch, renderTool } from './pages';
import type { SiteAssets } from './site-assets';
import { isCountableClick, langOfPath, parsePage, parseReference, parseSiteSearch, parseSort, SiteBadRequest } from './site-params';
import type { Translations } from './site-queries';
import type { SiteService } from './site-service';
import { LANGS, SITE_TEXT, type Lang } from './site-text';
import { pageUrl } from './site-urls';
import { renderPagesSitemap, renderRobots, renderSitemapIndex, renderToolsSitemap } from './sitemap';
import { THEME_BOOT_HASH } from './theme';
import type { SubmissionsService } from '../submissions/submissions-service';
import { renderTag } from './tag-page';
import { createSubmitRoutes } from './submit-routes';

/**
 * No inline style anywhere and one inline script, allowed by its hash (the theme, set before the first
 * paint: theme.ts): scripts and styles come only from this origin (the hashed files under /assets/), and
 * images too: tools' icons are served from here (/icons/), never from their sites.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' ${THEME_BOOT_HASH}`,
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

/** Pages may be kept this long by nginx and browsers: brief, so visit counts and edits show soon. */
export const PAGE_MAX_AGE_SECONDS = 30;
const CACHEABLE = `public, max-age=${PAGE_MAX_AGE_SECONDS}`;
const IMMUTABLE = 'public, max-age=31536000, immutable';
const HOST_HEADER = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Paths that belong to the API: its own error envelope answers them, never a web page. */
const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

export interface SiteRoutesDeps {
  site: SiteService;
  admit: AccessControl;
  assets: SiteAssets;
  /** Origin of absolute URLs; unset: the request's scheme (from nginx) and Host header. */
  publicBaseUrl: string | undefined;
  submissions: SubmissionsService;
}

function sendText(res: Response, status: number, type: string, body: string, cacheControl: string): void {
  res.status(status).set({ 'Content-Type': type, 'Cache-Control': cacheControl }).send(body);
}

/** The website: server-rendered pages of the directory at `/` (Chinese) and `/en/` (English). */
export function createSiteRoutes(deps: SiteRoutesDeps): Router {
  const { site, admit, assets } = deps;
  const router = Router();

  // X-Forwarded-Host is not read: nginx passes it on from the client, and a page cached under one
  // Host must not carry links to another.
  const baseUrlOf = (req: Request) => {
    if (deps.publicBaseUrl) return deps.publicBaseUrl;
    const host = req.headers.host ?? '';
    return `${req.protocol}://${HOST_HEADER.test(host) ? host : 'localhost'}`;
  };
  const contextOf = (req: Request, lang: Lang, translations: Translations = NO_TRANSLATIONS): PageContext => {
    const icons = req.res?.locals.iconVersions as ReadonlyMap<string, string> | undefined;
    return {
      lang,
      text: SITE_TEXT[lang],
      baseUrl: baseUrlOf(req),
      assets,
      localize: createLocalizer(lang, translations),
      iconUrl: (slug) => {
        const version = icons?.get(slug);
        return version ? iconUrl(slug, version) : undefined;
      },
    };
  };
  const sendPage = (res: Response, lang: Lang, status: number, body: string, cacheControl: string) => {
    res.set('Content-Language', SITE_TEXT[lang].htmlLang);
    sendText(res, status, 'text/html; charset=utf-8', body, cacheControl);
  };
  const redirect = (res: Response, location: string, status = 301) => {
    res.set('Cache-Control', CACHEABLE).redirect(status, location);
  };

  // The home page is the largest page (every category's first tools): its HTML is kept beside its cached
  // data and English fields (new objects whenever either is reloaded), once per language and origin, so a
  // cached home page is not rendered again per request. Few origins are kept: the Host header is the visitor's.
  const homePages = new WeakMap<object, WeakMap<object, Map<string, string>>>();
  const renderHomeOnce = (context: PageContext, data: object, translations: Translations, render: () => string): string => {
    let byTranslations = homePages.get(data);
    if (!byTranslations) homePages.set(data, (byTranslations = new WeakMap()));
    let byKey = byTranslations.get(translations);
    if (!byKey) byTranslations.set(translations, (byKey = new Map()));
    const key = `${context.lang} ${context.baseUrl}`;
    let body = byKey.get(key);
    if (body === undefined) {
      body = render();
      if (byKey.size < 8) byKey.set(key, body);
    }
    return body;
  };

  router.use((req, res, next) => {
    if (!isApiPath(req.path)) res.set(SECURITY_HEADERS);
    next();
  });

  // Static files and robots.txt: served from memory, not counted against the visitor's limit.
  router.get('/assets/:file', (req, res) => {
    res.locals.metricsRoute = 'site_asset';
    const asset = assets.find(req.params.file!);
    if (!asset) {
      sendText(res, 404, 'text/plain; charset=utf-8', 'Not found\n', 'no-store');
      return;
    }
    res.status(200).set({ 'Content-Type': asset.type, 'Cache-Control': IMMUTABLE }).send(asset.body);
  });
  // Asked for by browsers and crawlers at these fixed paths; both also linked from every page's <head>.
  router.get('/favicon.ico', (_req, res) => {
    res.locals.metricsRoute = 'site_asset';
    const icon = assets.file('favicon.ico');
    res.status(200).set({ 'Content-Type': icon.type, 'Cache-Control': 'public, max-age=86400' }).send(icon.body);
  });
  const manifest = renderManifest(SITE_TEXT.zh, assets);
  router.get('/manifest.webmanifest', (_req, res) => {
    res.locals.metricsRoute = 'site_asset';
    sendText(res, 200, 'application/manifest+json; charset=utf-8', manifest, 'public, max-age=86400');
  });
  router.get('/robots.txt', (req, res) => {
    res.locals.metricsRoute = 'site_robots';
    sendText(res, 200, 'text/plain; charset=utf-8', renderRobots(baseUrlOf(req)), 'public, max-age=3600');
  });

  // Every other website request counts against the visitor's address, as an anonymous search does.
  const limit: RequestHandler = async (req, _res, next) => {
    if (isApiPath(req.path)) {
      next();
      return;
    }
    await admit({ presentedKey: undefined, clientIp: req.ip ?? 'unknown', authentication: 'optional' });
    next();
  };
  router.use(limit);
  // Which tools have an icon of ours, for the pages below (a cached map, read once per catalog change).
  router.use(async (req, res, next) => {
    if (!isApiPath(req.path)) res.locals.iconVersions = await site.iconVersions();
    next();
  });

  router.get('/sitemap.xml', async (req, res) => {
    res.locals.metricsRoute = 'site_sitemap';
    sendText(res, 200, 'application/xml; charset=utf-8', renderSitemapIndex(baseUrlOf(req), await site.sitemap()), CACHEABLE);
  });
  router.get('/sitemap-pages.xml', async (req, res) => {
    res.locals.metricsRoute = 'site_sitemap';
    sendText(res, 200, 'application/xml; charset=utf-8', renderPagesSitemap(baseUrlOf(req), await site.sitemap()), CACHEABLE);
  });
  router.get(/^\/sitemap-tools-([1-9]\d{0,5})\.xml$/, async (req, res) => {
    res.locals.metricsRoute = 'site_sitemap';
    const file = Number((req.params as Record<string, string>)[0]);
    sendText(res, 200, 'application/xml; charset=utf-8', renderToolsSitemap(baseUrlOf(req), await site.sitemapTools(file)), CACHEABLE);
  });

  for (const lang of LANGS) {
    const prefix = lang === 'en' ? '/en' : '';

    router.get(`${prefix}/`, async (req, res) => {
      res.locals.metricsRoute = 'site_home';
      if (req.path === '/en') {
        redirect(res, '/en/');
        return;
      }
      const [data, translations] = await Promise.all([site.home(), site.translations()]);
      const context = contextOf(req, lang, translations);
      sendPage(res, lang, 200, renderHomeOnce(context, data, translations, () => renderHome(context, data)), CACHEABLE);
    });

    router.get(`${prefix}/category/:reference`, async (req, res) => {
      res.locals.metricsRoute = 'site_category';
      const reference = parseReference(req.params.reference);
      if (reference === null) throw notFound();
      const page = parsePage(req.query);
      const sort = parseSort(req.query);
      const [data, translations] = await Promise.all([site.category(reference, page, sort, lang), site.translations()]);
      if (data.detail.category.slug !== reference) {
        redirect(res, pageUrl(lang, { kind: 'category', slug: data.detail.category.slug, page, sort }));
        return;
      }
      sendPage(res, lang, 200, renderCategory(contextOf(req, lang, translations), data), CACHEABLE);
    });

    router.get(`${prefix}/tag/:tag`, async (req, res) => {
      res.locals.metricsRoute = 'site_tag';
      const tag = parseReference(req.params.tag);
      if (tag === null) throw notFound();
      const page = parsePage(req.query);
      const sort = parseSort(req.query);
      const [data, translations] = await Promise.all([site.tag(tag, page, sort, lang), site.translations()]);
      sendPage(res, lang, 200, renderTag(contextOf(req, lang, translations), data), CACHEABLE);
    });

    router.get(`${prefix}/tool/:reference`, async (req, res) => {
      res.locals.metricsRoute = 'site_tool';
      const reference = parseReference(req.params.reference);
      if (reference === null) throw notFound();
      const [data, translations] = await Promise.all([site.tool(reference), site.translations()]);
      if (data.tool.slug !== reference) {
        redirect(res, pageUrl(lang, { kind: 'tool', slug: data.tool.slug }));
        return;
      }
      sendPage(res, lang, 200, renderTool(contextOf(req, lang, translations), data), CACHEABLE);
    });

    router.get(`${prefix}/search`, async (req, res) => {
      res.locals.metricsRoute = 'site_search';
      const { keyword, page } = parseSiteSearch(req.query);
      const [result, categories, translations] = await Promise.all([keyword === '' ? null : site.search(keyword, page), site.categories(), site.translations()]);
      sendPage(res, lang, 200, renderSearch(contextOf(req, lang, translations), keyword, result, categories), CACHEABLE);
    });
  }

  router.use(createSubmitRoutes({ site, submissions: deps.submissions, contextOf: async (req, lang) => contextOf(req, lang, await site.translations()), sendPage, cacheable: CACHEABLE }));

  // The counted outbound link. Never cached anywhere: each click must reach this handler to be counted.
  router.get('/go/:reference', async (req, res) => {
    res.locals.metricsRoute = 'site_visit';
    const reference = parseReference(req.params.reference);
    if (reference === null) throw notFound();
    const target = await site.visit(reference, { count: isCountableClick({ method: req.method, header: (name) => req.get(name) }) });
    res.set({ 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow' }).redirect(302, target);
  });

  // Any other path outside the API: the website's own 404 (405 for methods other than GET and HEAD).
  router.use((req, _res, next) => {
    if (isApiPath(req.path)) next();
    else if (req.method !== 'GET' && req.method !== 'HEAD') next(new AppError('methodNotAllowed', 405));
    else next(notFound());
  });

  /**
   * A path part the router could not percent-decode (`/tool/%ff`: not UTF-8) names no page: it is the
   * 404 page, as any unknown path is, not a fault of the site.
   */
  const isUndecodablePath = (error: unknown): boolean => error instanceof URIError && (error as { status?: unknown }).status === 400;

  const errorPage: ErrorRequestHandler = (error, req, res, next) => {
    if (isApiPath(req.path) || res.headersSent) {
      next(error);
      return;
    }
    const lang = langOfPath(req.path);
    const text = SITE_TEXT[lang];
    const context = contextOf(req, lang);
    if (error instanceof SiteBadRequest) {
      sendPage(res, lang, 400, renderError(context, { title: text.badRequestTitle, text: error.explain(text) }), 'no-store');
    } else if ((error instanceof AppError && error.status === 404) || isUndecodablePath(error)) {
      res.locals.metricsRoute ??= 'site_not_found';
      sendPage(res, lang, 404, renderError(context, { title: text.notFoundTitle, text: text.notFoundText }), CACHEABLE);
    } else if (error instanceof AppError && error.status === 405) {
      res.locals.metricsRoute ??= 'site_not_found';
      res.set('Allow', 'GET, HEAD');
      sendPage(res, lang, 405, renderError(context, { title: text.methodTitle, text: text.methodText }), 'no-store');
    } else if (error instanceof AppError && error.status === 429) {
      if (error.headers['Retry-After']) res.set('Retry-After', error.headers['Retry-After']);
      sendPage(res, lang, 429, renderError(context, { title: text.tooManyTitle, text: text.tooManyText }), 'no-store');
    } else {
      requestLog(req)?.error({ err: error }, 'unexpected fault');
      sendPage(res, lang, 500, renderError(context, { title: text.errorTitle, text: text.errorText }), 'no-store');
    }
  };
  router.use(errorPage);
  return router;
}
