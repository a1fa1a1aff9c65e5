import type { Request, Response } from 'express';
import type { AdsService } from '../ads/ads-service';
import type { AccessControl } from '../auth/access-control';
import type { DirectoryService } from '../catalog/directory-service';
import { AppError, badParameter } from '../errors/app-error';
import {
  parseAction,
  parseAdsType,
  parseCategoryQuery,
  parseSearchQuery,
  parseToolListQuery,
  parseToolSlug,
  presentedApiKey,
  type RawQuery,
} from './directory-params';
import { ok } from './envelope';

export const API_PATH = '/api/index.php';

interface Action {
  authentication: 'required' | 'optional';
  /** Parses the request's query and runs the service call; `req` goes no further than this file. */
  run(query: RawQuery, req: Request): Promise<unknown>;
}

/** On every answer of the API path, preflight and errors included: any origin may call the API. */
const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'X-API-Key, X-Request-Id, Content-Type',
  'Access-Control-Expose-Headers': 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After',
  'Access-Control-Max-Age': '600',
};

/** The handler of API_PATH, for every method (mounted with app.all: one layer for Express to match). */
export function createDirectoryHandler(deps: { directory: DirectoryService; ads: AdsService; admit: AccessControl }): (req: Request, res: Response) => Promise<void> {
  const { directory, ads, admit } = deps;
  const actions: Record<string, Action> = {
    tools: { authentication: 'required', run: (query) => directory.listTools(parseToolListQuery(query)) },
    tool: { authentication: 'required', run: (query, req) => directory.toolDetail(parseToolSlug(query), { countVisit: req.method !== 'HEAD' }) },
    search: { authentication: 'optional', run: (query) => directory.search(parseSearchQuery(query)) },
    categories: { authentication: 'required', run: () => directory.categories() },
    category: { authentication: 'required', run: (query) => directory.categoryDetail(parseCategoryQuery(query)) },
    stats: { authentication: 'required', run: () => directory.stats() },
    miniapp: {
      authentication: 'optional',
      run: (query) => {
        parseAdsType(query);
        return ads.adsConfig();
      },
    },
  };

  // Lists and search results come from a short cache (see directory-service.ts): the same object on
  // every hit, so its JSON is made once, as bytes (no string to encode per response). Served objects
  // are never changed, so the bytes stay true.
  // Kept over res.json for target 1 (≥ 0.6× Express, search at 0.66×): res.json cost 1.45× the service's CPU per list and 1.23× per search, side by side in both orders (docs/benchmarks.md).
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

  return async (req: Request, res: Response): Promise<void> => {
    res.set(CORS_HEADERS);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.locals.metricsRoute = 'method_not_allowed';
      throw new AppError('methodNotAllowed', 405, { Allow: 'GET, HEAD, OPTIONS' });
    }
    // Order of checks: method, action, key, rate limit, parameters. Express 5 parses the query
    // again on every read of req.query: it is read once.
    const query = req.query as RawQuery;
    res.locals.metricsRoute = 'invalid_action';
    const name = parseAction(query);
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (!action) throw badParameter('未知的 action');
    res.locals.metricsRoute = name;
    const rateLimitHeaders = await admit({
      presentedKey: presentedApiKey(req.get('x-api-key'), query),
      clientIp: req.ip ?? 'unknown',
      authentication: action.authentication,
    });
    res.set(rateLimitHeaders);
    res.type('application/json').send(render(await action.run(query, req)));
  };
}
