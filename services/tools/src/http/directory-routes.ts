import { Router, type Request, type Response } from 'express';
import type { AdsService } from '../ads/ads-service';
import type { AccessControl } from '../auth/access-control';
import type { DirectoryService } from '../catalog/directory-service';
import { AppError } from '../errors/app-error';
import { badParameter, Messages } from '../errors/messages';
import {
  parseAction,
  parseAdsType,
  parseCategoryQuery,
  parseSearchQuery,
  parseToolListQuery,
  parseToolSlug,
  presentedApiKey,
} from './directory-params';
import { ok } from './envelope';

export const API_PATH = '/api/index.php';

interface Action {
  authentication: 'required' | 'optional';
  /** Parses the request and runs the service call; `req` goes no further than this file. */
  run(req: Request): Promise<unknown>;
}

export function createDirectoryRoutes(deps: { directory: DirectoryService; ads: AdsService; admit: AccessControl }): Router {
  const { directory, ads, admit } = deps;
  const actions: Record<string, Action> = {
    tools: { authentication: 'required', run: (req) => directory.listTools(parseToolListQuery(req.query)) },
    tool: { authentication: 'required', run: (req) => directory.toolDetail(parseToolSlug(req.query), { countVisit: req.method !== 'HEAD' }) },
    search: { authentication: 'optional', run: (req) => directory.search(parseSearchQuery(req.query)) },
    categories: { authentication: 'required', run: () => directory.categories() },
    category: { authentication: 'required', run: (req) => directory.categoryDetail(parseCategoryQuery(req.query)) },
    stats: { authentication: 'required', run: () => directory.stats() },
    miniapp: {
      authentication: 'optional',
      run: (req) => {
        parseAdsType(req.query);
        return ads.adsConfig();
      },
    },
  };

  // Lists and search results come from a short cache (see directory-service.ts): the same object on
  // every hit, so its JSON is made once, as bytes (no string to encode per response). Served objects
  // are never changed, so the bytes stay true.
  const rendered = new WeakMap<object, Buffer>();
  const render = (data: unknown): Buffer => {
    if (typeof data !== 'object' || data === null) return Buffer.from(JSON.stringify(ok(data)));
    let bytes = rendered.get(data);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(ok(data)));
      rendered.set(data, bytes);
    }
    return bytes;
  };

  const router = Router();
  router.options(API_PATH, (_req, res) => {
    res.status(204).end();
  });
  // Order of checks: method, action, key, rate limit, parameters.
  router.get(API_PATH, async (req: Request, res: Response) => {
    res.locals.metricsRoute = 'invalid_action';
    const name = parseAction(req.query);
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (!action) throw badParameter('未知的 action');
    res.locals.metricsRoute = name;
    const rateLimitHeaders = await admit({
      presentedKey: presentedApiKey(req.get('x-api-key'), req.query),
      clientIp: req.ip ?? 'unknown',
      authentication: action.authentication,
    });
    res.set(rateLimitHeaders);
    res.type('application/json').send(render(await action.run(req)));
  });
  router.all(API_PATH, (_req, res) => {
    res.locals.metricsRoute = 'method_not_allowed';
    throw new AppError(Messages.methodNotAllowed, 405, { Allow: 'GET, HEAD, OPTIONS' });
  });
  return router;
}
