import { randomUUID } from 'node:crypto';
import querystring from 'node:querystring';
import express from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { createCategoriesRepository } from './categories/categories-repository';
import type { ImagesConfig } from './config';
import { AppError } from './http/app-error';
import { drainUnreadBody } from './http/drain-request';
import { errorMiddleware } from './http/error-middleware';
import { Messages } from './http/messages';
import { createImageRoutes } from './images/image-routes';
import { createImagesRepository } from './images/images-repository';
import { createImagesService, type ImagesService } from './images/images-service';
import type { MediaProcessor } from './media/media-processor';
import type { Metrics } from './metrics/metrics';
import type { FileStorage } from './storage/file-storage';
import { createThumbSigner } from './thumbnails/thumb-signer';
import { createUsersRepository } from './users/users-repository';

export interface AppDeps {
  config: ImagesConfig;
  db: Knex;
  storage: FileStorage;
  media: MediaProcessor;
  metrics: Metrics;
  logger: Logger;
  clock?: () => Date;
}

/**
 * The logged URL with the value of every `token` parameter redacted. Names are compared decoded, as
 * the query parser reads them, so `%74oken=<token>` (which authenticates) is redacted too.
 */
export function redactTokens(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const pairs = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const nameEnd = pair.indexOf('=');
      const rawName = nameEnd === -1 ? pair : pair.slice(0, nameEnd);
      return querystring.unescape(rawName.replace(/\+/g, ' ')) === 'token' ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, queryStart + 1)}${pairs.join('&')}`;
}

const KNOWN_ROUTES = new Set(['/api/image.php', '/api/thumb.php', '/healthz', '/readyz', '/metrics']);
const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** Wires the service graph for one app instance. */
export function createImagesServiceFromDeps(deps: AppDeps): ImagesService {
  return createImagesService({
    users: createUsersRepository(deps.db),
    categories: createCategoriesRepository(deps.db),
    images: createImagesRepository(deps.db),
    storage: deps.storage,
    media: deps.media,
    signer: createThumbSigner(deps.config.thumbSigningSecret),
    metrics: deps.metrics,
    logger: deps.logger,
    clock: deps.clock ?? (() => new Date()),
    publicBaseUrl: deps.config.publicBaseUrl,
    timeZone: deps.config.timeZone,
    recycleRetentionDays: deps.config.recycleRetentionDays,
  });
}

/** Builds the Express app; never listens. */
export function createApp(deps: AppDeps, service: ImagesService = createImagesServiceFromDeps(deps)): express.Express {
  const { db, metrics } = deps;
  const app = express();
  app.set('trust proxy', 1);
  app.disable('x-powered-by');

  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
      // Tokens travel in a header, the query or the body: never let one reach the logs.
      serializers: {
        req: (req: { id: unknown; method: string; url: string; remoteAddress?: string; headers: Record<string, unknown> }) => ({
          id: req.id,
          method: req.method,
          url: redactTokens(req.url),
          remoteAddress: req.remoteAddress,
          userAgent: req.headers['user-agent'],
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );

  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = KNOWN_ROUTES.has(req.path) ? req.path : 'unmatched';
      metrics.observeRequest(route, req.method, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  });

  app.use('/api', (req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-API-Token, Idempotency-Key, X-Request-Id');
      res.setHeader('Access-Control-Max-Age', '86400');
      res.status(204).end();
      return;
    }
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (req, res) => {
    try {
      await db.raw('select 1');
      res.json({ status: 'ok' });
    } catch (error) {
      req.log.warn({ err: error }, 'readiness check failed');
      res.status(503).json({ status: 'unavailable' });
    }
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  // Small bodies only: files go through multipart, which has its own limits.
  app.use('/api/image.php', express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 }));
  app.use('/api/image.php', express.json({ limit: '64kb' }));
  app.use(createImageRoutes({ service, storage: deps.storage, maxUploadBytes: deps.config.maxUploadBytes }));

  app.use((_req, _res, next) => next(new AppError(Messages.unknownAction, 404)));
  app.use(drainUnreadBody(deps.config.maxUploadBytes));
  app.use(errorMiddleware);
  return app;
}
