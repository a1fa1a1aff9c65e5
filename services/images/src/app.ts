import express from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createHealthRepository, createSignInLimiter, mountOperationalRoutes, observeRequests, registerCapacityMetrics } from '@platform/kit';
import { userNameKey } from './users/user-name';
import { createAccountService } from './auth/account-service';
import { createAuthService } from './auth/auth-service';
import { createCredentialsRepository } from './auth/credentials-repository';
import { createTokenVault } from './auth/token-vault';
import { createCategoriesRepository } from './categories/categories-repository';
import { createCategoriesService } from './categories/categories-service';
import type { ImagesConfig } from './config';
import { createAuthenticate } from './http/authenticate';
import { createCompatRoutes } from './http/compat/compat-routes';
import { drainUnreadBody } from './http/drain-request';
import { errorMiddleware, notFound } from './http/error-middleware';
import { createImageRoutes } from './http/image-routes';
import { createShareRoutes } from './http/share-routes';
import { createSharingRepository } from './sharing/sharing-repository';
import { createSharingService } from './sharing/sharing-service';
import { createUploadReceiver } from './http/upload-receiver';
import { createBinService } from './images/bin-service';
import { createBulkService } from './images/bulk-service';
import { createImageFiles } from './images/image-files';
import { createImageViews } from './images/image-views';
import { createImagesRepository } from './images/images-repository';
import { createLinkSigner } from './images/link-signer';
import { createListingService } from './images/listing-service';
import { createRenameService } from './images/rename-service';
import { createRecoveryService } from './images/recovery-service';
import { createStorageMigration } from './images/storage-migration';
import { createThumbnailService } from './images/thumbnail-service';
import { createUploadService } from './images/upload-service';
import type { MediaProcessor } from './media/media-processor';
import type { Metrics } from './metrics/metrics';
import type { Storage } from './storage/storage';
import type { StatementWatch } from './db/statement-watch';
import { followAllowedHost } from './http/public-base';
import { createAdminImagesRepository } from './images/admin-images-repository';
import { createAdminImagesService } from './images/admin-images-service';
import { createSiteSettingsRepository } from './settings/site-settings-repository';
import { createSiteSettings } from './settings/site-settings';
import { createAdminService } from './users/admin-service';
import { createProfileService } from './users/profile-service';
import { createUserAdmin } from './users/user-admin';
import { createUsersRepository } from './users/users-repository';

/**
 * The query parameters whose values the request log shows; every other value is logged as `[redacted]`
 * (a token, a deletion link's `sig`, a password sent where it does not belong, a name no one expected).
 */
const LOGGED_QUERY_NAMES = ['action', 'page', 'limit', 'category_id', 'keyword', 'links', 'id', 'ids', 'name', 'client'];

export interface AppDeps {
  config: ImagesConfig;
  db: Knex;
  storage: Storage;
  media: MediaProcessor;
  metrics: Metrics;
  logger: Logger;
  clock?: () => Date;
  /** The hot statements as named prepared statements: what open-service resolved from DATABASE_PREPARED_STATEMENTS (auto: detected). */
  namedStatements?: boolean;
  /** Prepared statements that failed behind a pooler (open-service watches them); /readyz is 503 after one. */
  statements?: StatementWatch;
}

/** The use cases of the service over its repositories, storage and media; shared by the app, housekeeping and the admin CLI. */
export function createServices(deps: AppDeps) {
  const { config, db, storage, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const users = createUsersRepository(db);
  const namedStatements = deps.namedStatements ?? config.preparedStatements === true;
  const credentials = createCredentialsRepository(db, { namedStatements });
  const categories = createCategoriesRepository(db);
  const images = createImagesRepository(db, { namedStatements });
  const signer = createLinkSigner(config.thumbSigningSecret);
  const views = createImageViews({ publicBaseUrl: config.publicBaseUrl, timeZone: config.timeZone, signer });
  const files = createImageFiles(storage, logger);
  const siteSettings = createSiteSettings({ repository: createSiteSettingsRepository(db), users, fixed: config.fixedSettings });
  const userAdmin = createUserAdmin({
    users,
    credentials,
    vault: createTokenVault(config.tokenEncryptionKey),
    maxUploadBytes: config.maxUploadBytes,
    defaultGroup: async () => (await siteSettings.effective()).defaultGroup,
  });
  const bin = createBinService({ images, files, signer, clock, recycleRetentionDays: config.recycleRetentionDays });
  const bulk = createBulkService({ bin, images, categories, logger });
  const recovery = createRecoveryService({ images, files, storage, logger, clock });
  const auth = createAuthService({
    users,
    credentials,
    userAdmin,
    limiter: createSignInLimiter(db, {
      tableName: 'sign_in_limits',
      nameKey: userNameKey,
      attemptsPerAddress: config.signInAttemptsPerAddress,
      failuresPerAccount: config.signInFailuresPerAccount,
      registrationsPerAddress: config.registrationsPerAddress,
    }),
    clock,
    sessionTtlHours: config.sessionTtlHours,
    siteSettings: siteSettings.effective,
  });
  return {
    auth,
    account: createAccountService({ auth, credentials, userAdmin, formatTime: views.formatTime, publicBaseUrl: config.publicBaseUrl }),
    admin: createAdminService({ users, userAdmin, formatTime: views.formatTime }),
    adminImages: createAdminImagesService({ images: createAdminImagesRepository(db, { timeZone: config.timeZone }), users, bulk, views }),
    siteSettings,
    userAdmin,
    uploads: createUploadService({ images, categories, storage, files, media: deps.media, views, logger, clock }),
    listing: createListingService({ images, categories, views, recycleRetentionDays: config.recycleRetentionDays }),
    naming: createRenameService({ images, views }),
    bin,
    bulk,
    recovery,
    storageMigration: createStorageMigration({ images, files, storage, recovery, logger }),
    thumbnails: createThumbnailService({ images, files, signer }),
    categories: createCategoriesService({ categories, formatTime: views.formatTime }),
    profile: createProfileService({ users, recycleRetentionDays: config.recycleRetentionDays }),
    sharing: createSharingService({
      sharing: createSharingRepository(db),
      categories,
      views,
      signer,
      // The kit's sign-in limiter counts share passwords too: per address, and per link as if it were an account.
      limiter: createSignInLimiter(db, {
        tableName: 'sign_in_limits',
        nameKey: (linkId) => `share-link:${linkId}`,
        attemptsPerAddress: config.signInAttemptsPerAddress,
        failuresPerAccount: config.signInFailuresPerAccount,
      }),
      publicBaseUrl: config.publicBaseUrl,
    }),
    formatTime: views.formatTime,
    imageUrl: views.imageUrl,
    /** The IANA zone of every time the API answers (`YYYY-MM-DD HH:MM:SS`, no offset): TIME_ZONE. */
    timeZone: config.timeZone,
  };
}

export type Services = ReturnType<typeof createServices>;

export type Readiness =
  | { status: 'ok'; database: 'ok'; bucket: 'ok' | 'not_configured' }
  | { status: 'unavailable'; database: 'down' }
  | { status: 'unavailable'; database: 'ok'; statements: 'failing' }
  | { status: 'unavailable'; database: 'ok'; bucket: 'down' };

/** How long /readyz waits for the bucket: a probe must answer well within its own timeout (compose: 3 s). */
const BUCKET_PROBE_TIMEOUT_MS = 2_000;

/**
 * What /readyz answers: ready while the database answers, no prepared statement has failed behind a
 * pooler and, when a bucket is configured, the bucket answers too (HeadBucket within 2 s): a replica that
 * cannot reach its images cannot serve them.
 */
export function createReadiness(db: Knex, storage: Storage, logger?: Logger, statements?: StatementWatch): () => Promise<Readiness> {
  const health = createHealthRepository(db);
  const bucket = storage.isConfigured('s3') ? storage.storeFor('s3') : undefined;
  return async () => {
    if (!(await health.databaseAnswers())) return { status: 'unavailable', database: 'down' };
    if (statements?.failure()) return { status: 'unavailable', database: 'ok', statements: 'failing' };
    if (!bucket) return { status: 'ok', database: 'ok', bucket: 'not_configured' };
    try {
      await bucket.answers(BUCKET_PROBE_TIMEOUT_MS);
      return { status: 'ok', database: 'ok', bucket: 'ok' };
    } catch (error) {
      logger?.warn({ err: error }, 'readiness: the bucket does not answer');
      return { status: 'unavailable', database: 'ok', bucket: 'down' };
    }
  };
}

/** Builds the Express app; never listens. */
export function createApp(deps: AppDeps, services: Services = createServices(deps)): express.Express {
  const { metrics } = deps;
  const readiness = createReadiness(deps.db, deps.storage, deps.logger, deps.statements);
  const app = express();
  // Only a configured proxy may name the client: anyone else reaching the port could pick the address the sign-in limit counts.
  app.set('trust proxy', [...deps.config.trustedProxies]);
  // No entity tag on what res.send answers: every API answer is no-store, so nothing would ever ask
  // with If-None-Match, and the tag cost a SHA-1 of each list page. Thumbnails set their own.
  app.set('etag', false);
  app.disable('x-powered-by');

  const capacity = registerCapacityMetrics(metrics.registry, 'images', deps.db);
  app.use(observeRequests({ logger: deps.logger, loggedQueryNames: LOGGED_QUERY_NAMES, observe: metrics.observeRequest, inFlight: capacity.inFlight }));

  // Links on the request's own origin when its host is one the operator allowed (PUBLIC_HOSTS).
  app.use(followAllowedHost({ publicBaseUrl: deps.config.publicBaseUrl, allowedHosts: deps.config.publicHosts }));

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

  mountOperationalRoutes(app, { readiness, registry: metrics.registry });

  // Every API answer is one user's (a token, their images) or a refusal: no cache may keep it.
  app.use('/api/image.php', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Small bodies only: files go through multipart, which has its own limits.
  app.use('/api/image.php', express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 }));
  app.use('/api/image.php', express.json({ limit: '64kb' }));
  const receiver = createUploadReceiver(deps.storage.temp, { memoryBytes: deps.config.uploadMemoryBytes });
  const clock = deps.clock ?? (() => new Date());
  const maxUploadBytes = deps.config.maxUploadBytes;
  app.use(createShareRoutes({ sharing: services.sharing, publicBaseUrl: deps.config.publicBaseUrl, cookieSecret: deps.config.thumbSigningSecret, clock }));
  app.use(createImageRoutes({ ...services, receiver, metrics, maxUploadBytes, formatTime: services.formatTime, clock }));
  app.use(
    createCompatRoutes({
      ...services,
      authenticate: createAuthenticate({ auth: services.auth, receiver, maxUploadBytes, clock }),
      receiver,
      metrics,
      maxUploadBytes,
      publicBaseUrl: deps.config.publicBaseUrl,
      storageName: deps.storage.backend,
      formatTime: services.formatTime,
      clock,
    }),
  );

  app.use(notFound);
  app.use(drainUnreadBody(deps.config.maxUploadBytes));
  app.use(errorMiddleware);
  return app;
}
