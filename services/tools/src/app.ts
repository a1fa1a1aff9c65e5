import express from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { randomUUID } from 'node:crypto';
import querystring from 'node:querystring';
import type { ToolsConfig } from './config';
import { createApiKeyRepository } from './auth/apiKeyRepository';
import { createCatalogRepository } from './catalog/catalogRepository';
import { createDirectoryService } from './catalog/directoryService';
import { createSettingsRepository } from './ads/settingsRepository';
import type { RequestLimiter } from './ratelimit/requestLimiter';
import { createAccessControl } from './http/accessControl';
import { createApiRoutes, API_PATH } from './http/apiRoutes';
import { errorHandler, notFoundHandler } from './http/errorHandler';
import { createMetrics } from './http/metrics';
import { createHealthRepository } from './db/healthRepository';

export interface AppDeps {
  db: Knex;
  limiter: RequestLimiter;
  logger: Logger;
  config: Pick<ToolsConfig, 'defaultRateLimitPerHour' | 'anonymousRateLimitPerHour' | 'statsCacheTtlMs'>;
  now?: () => number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The logged URL with the value of every `api_key` parameter replaced. Names are compared decoded, as the query
 * parser reads them, so `api%5Fkey=<key>` (which authenticates) is masked too.
 */
function maskApiKey(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const pairs = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const nameEnd = pair.indexOf('=');
      const rawName = nameEnd === -1 ? pair : pair.slice(0, nameEnd);
      return querystring.unescape(rawName.replace(/\+/g, ' ')).toLowerCase() === 'api_key' ? `${rawName}=***` : pair;
    });
  return `${url.slice(0, queryStart + 1)}${pairs.join('&')}`;
}

/** Builds the tool directory's Express app. It never listens. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.set('trust proxy', 1); // nginx is the one hop in front; never `true`, or X-Forwarded-For could pick the limited IP
  app.set('etag', false);
  app.disable('x-powered-by');

  const metrics = createMetrics();
  const health = createHealthRepository(deps.db);
  const directory = createDirectoryService({
    catalog: createCatalogRepository(deps.db),
    settings: createSettingsRepository(deps.db),
    cacheTtlMs: deps.config.statsCacheTtlMs,
    now: deps.now,
  });
  const admit = createAccessControl({
    apiKeys: createApiKeyRepository(deps.db),
    limiter: deps.limiter,
    metrics,
    defaultRateLimitPerHour: deps.config.defaultRateLimitPerHour,
    anonymousRateLimitPerHour: deps.config.anonymousRateLimitPerHour,
    now: deps.now,
  });

  app.use(metrics.observe);
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // No headers in logs, and the api_key query parameter masked: API keys must never reach a log.
      serializers: {
        req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
          id: req.id,
          method: req.method,
          url: maskApiKey(req.url),
          remoteAddress: req.remoteAddress,
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics' },
    }),
  );

  app.use(API_PATH, (_req, res, next) => {
    res.set({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
      'Access-Control-Allow-Headers': 'X-API-Key, X-Request-Id, Content-Type',
      'Access-Control-Expose-Headers':
        'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After',
      'Access-Control-Max-Age': '600',
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.locals.metricsRoute = 'healthz';
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    res.locals.metricsRoute = 'readyz';
    if (!(await health.databaseAnswers())) {
      res.status(503).json({ status: 'unavailable', database: 'down' });
      return;
    }
    const limiterStore = deps.limiter.storeState();
    // Redis down is not a reason to leave the load balancer: the insurance limiter keeps answering.
    if (limiterStore === 'degraded') res.json({ status: 'degraded', database: 'ok', redis: 'down' });
    else res.json({ status: 'ok', database: 'ok', redis: limiterStore === 'ok' ? 'ok' : 'not_configured' });
  });

  app.get('/metrics', async (_req, res) => {
    res.locals.metricsRoute = 'metrics';
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.use(createApiRoutes(directory, admit));
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
