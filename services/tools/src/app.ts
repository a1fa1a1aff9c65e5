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

/** Builds the tool directory's Express app. It never listens. */
export function createApp(deps: AppDeps): express.Express {
  const now = deps.now ?? Date.now;
  const metrics = deps.metrics ?? createMetrics();
  const health = createHealthRepository(deps.db);
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

  app.use(createDirectoryRoutes({ directory, ads, admit }));
  app.use(notFound);
  app.use(errorMiddleware);
  return app;
}
