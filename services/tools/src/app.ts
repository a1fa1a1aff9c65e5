import express from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createAdsService } from './ads/ads-service';
import { createSettingsRepository } from './ads/settings-repository';
import { createAccessControl } from './auth/access-control';
import { createApiKeyRepository } from './auth/api-key-repository';
import { createCatalogRepository } from './catalog/catalog-repository';
import { createDirectoryService } from './catalog/directory-service';
import type { ToolsConfig } from './config';
import { createHealthRepository } from './db/health-repository';
import { API_PATH, createDirectoryRoutes } from './http/directory-routes';
import { errorMiddleware, notFound } from './http/error-middleware';
import { requestLogging } from './http/request-logging';
import { requestMetrics } from './http/request-metrics';
import { createMetrics, type Metrics } from './metrics/metrics';
import type { RequestLimiter } from './ratelimit/request-limiter';

export interface AppDeps {
  config: Pick<ToolsConfig, 'defaultRateLimitPerHour' | 'anonymousRateLimitPerHour' | 'statsCacheTtlMs'>;
  db: Knex;
  limiter: RequestLimiter;
  logger: Logger;
  metrics?: Metrics;
  /** Milliseconds since the epoch; tests pass their own clock. */
  now?: () => number;
}

export type Readiness =
  | { status: 'ok'; database: 'ok'; redis: 'ok' | 'not_configured' }
  | { status: 'degraded'; database: 'ok'; redis: 'down' }
  | { status: 'unavailable'; database: 'down' };

/**
 * What /readyz answers. A Redis outage is "degraded", not unready: the insurance limiter keeps the
 * service answering, so it stays in the load balancer.
 */
export function createReadiness(db: Knex, limiter: RequestLimiter): () => Promise<Readiness> {
  const health = createHealthRepository(db);
  return async () => {
    if (!(await health.databaseAnswers())) return { status: 'unavailable', database: 'down' };
    const store = limiter.storeState();
    if (store === 'degraded') return { status: 'degraded', database: 'ok', redis: 'down' };
    return { status: 'ok', database: 'ok', redis: store === 'ok' ? 'ok' : 'not_configured' };
  };
}

/** Builds the tool directory's Express app. It never listens. */
export function createApp(deps: AppDeps): express.Express {
  const now = deps.now ?? Date.now;
  const metrics = deps.metrics ?? createMetrics();
  const readiness = createReadiness(deps.db, deps.limiter);
  const directory = createDirectoryService({ catalog: createCatalogRepository(deps.db), cacheTtlMs: deps.config.statsCacheTtlMs, now });
  const ads = createAdsService(createSettingsRepository(deps.db));
  const admit = createAccessControl({
    apiKeys: createApiKeyRepository(deps.db),
    limiter: deps.limiter,
    metrics,
    defaultRateLimitPerHour: deps.config.defaultRateLimitPerHour,
    anonymousRateLimitPerHour: deps.config.anonymousRateLimitPerHour,
    now,
  });

  const app = express();
  app.set('trust proxy', 1); // nginx is the one hop in front; never `true`, or X-Forwarded-For could pick the limited IP
  app.set('etag', false);
  app.disable('x-powered-by');

  app.use(requestMetrics(metrics.observeRequest));
  app.use(requestLogging(deps.logger, ['api_key']));

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
    const ready = await readiness();
    res.status(ready.status === 'unavailable' ? 503 : 200).json(ready);
  });
  app.get('/metrics', async (_req, res) => {
    res.locals.metricsRoute = 'metrics';
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.use(createDirectoryRoutes({ directory, ads, admit }));
  app.use(notFound);
  app.use(errorMiddleware);
  return app;
}
