import express from 'express';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createHealthRepository, createSignInLimiter, mountOperationalRoutes, observeRequests, registerCapacityMetrics } from '@platform/kit';
import { createAdsService } from './ads/ads-service';
import { createSettingsRepository } from './ads/settings-repository';
import { createAccessControl } from './auth/access-control';
import { createKeyLookup } from './auth/api-key-cache';
import { createApiKeysRepository } from './auth/api-keys-repository';
import type { KeyVersion } from './auth/key-version';
import { createCatalogEdits } from './catalog/catalog-edits';
import { createCatalogEditor } from './catalog/catalog-editor';
import { createExportRepository } from './catalog/export-repository';
import { createImportService } from './imports/import-service';
import { createCatalogRepository } from './catalog/catalog-repository';
import { createRevisionWatch } from './catalog/revision-watch';
import { catalogSearchEngine, createDirectoryService } from './catalog/directory-service';
import { createAdminRoutes } from './admin-web/admin-routes';
import { createOutboundAdmin } from './admin-web/outbound-admin';
import { fetcherSettings } from './outbound/fetcher';
import { createEditorAuth, EDITOR_SIGN_IN_LIMITS } from './editors/editor-auth';
import { editorNameKey } from './editors/editor-name';
import { createEditorsRepository } from './editors/editors-repository';
import type { ToolsConfig } from './config';
import { API_PATH, createDirectoryHandler } from './http/directory-routes';
import { errorMiddleware, notFound } from './http/error-middleware';
import { createIconRepository } from './icons/icon-repository';
import { createIconRoutes } from './icons/icon-routes';
import { createMetrics, type Metrics } from './metrics/metrics';
import type { RequestLimiter } from './ratelimit/request-limiter';
import { loadSiteAssets } from './site/site-assets';
import { createSiteCache } from './site/site-cache';
import { createSiteRoutes } from './site/site-routes';
import { createSiteQueries } from './site/site-queries';
import { createSiteService } from './site/site-service';
import { createSubmissionsService } from './submissions/submissions-service';
import { createKeyHourCounter } from './usage/key-hours';

/**
 * The catalog revision is read at most this often (for the site cache and the API's read caches): edits made
 * elsewhere show on pages and in answers within about a second; an editor's own edits here, at once.
 */
const REVISION_CHECK_MS = 1000;
/** Pages' data kept at most (least recently used dropped first): search keywords and slugs come from visitors. */
const SITE_CACHE_ENTRIES = 2000;

/**
 * The query parameters whose values the request log shows (the API's, those nginx's v1 rewrites add, the
 * website's); every other value is logged as `[redacted]`: an API key, or a name no one expected.
 */
const LOGGED_QUERY_NAMES = ['action', 'page', 'limit', 'q', 'category_id', 'slug', 'id', 'type'];

export interface AppDeps {
  config: Pick<ToolsConfig, 'defaultRateLimitPerHour' | 'anonymousRateLimitPerHour' | 'statsCacheTtlMs' | 'readCacheTtlMs' | 'siteCacheTtlMs' | 'publicBaseUrl' | 'trustedProxies' | 'outboundAllowCidrs' | 'outboundTimeoutMs' | 'iconRefreshDays' | 'linkCheckIntervalHours'>;
  db: Knex;
  limiter: RequestLimiter;
  logger: Logger;
  metrics?: Metrics;
  /** Lets API keys be cached in memory, checked against this version on every request; none: looked up every time. */
  keyVersion?: KeyVersion;
  /** The time; tests pass their own clock. */
  clock?: () => Date;
  /** Awaited between chunks of a search index rebuild (default: the event loop's next turn); a test looks in mid-rebuild. */
  searchPause?: () => Promise<void>;
}

export type Readiness =
  | { status: 'ok'; database: 'ok'; redis: 'ok'; limiter: 'shared' }
  | { status: 'ok'; database: 'ok'; redis: 'not_configured'; limiter: 'memory' }
  | { status: 'degraded'; database: 'ok'; redis: 'down'; limiter: 'memory' }
  | { status: 'unavailable'; database: 'down' };

/**
 * What /readyz answers. A Redis outage is "degraded", not unready: the insurance limiter keeps the
 * service answering, so it stays in the load balancer. `limiter` says where this replica counts: in
 * Redis, shared by every replica, or in its own memory (a key's limit then holds per replica).
 */
export function createReadiness(db: Knex, limiter: RequestLimiter): () => Promise<Readiness> {
  const health = createHealthRepository(db);
  return async () => {
    if (!(await health.databaseAnswers())) return { status: 'unavailable', database: 'down' };
    const store = limiter.storeState();
    if (store === 'degraded') return { status: 'degraded', database: 'ok', redis: 'down', limiter: 'memory' };
    if (store === 'ok') return { status: 'ok', database: 'ok', redis: 'ok', limiter: 'shared' };
    return { status: 'ok', database: 'ok', redis: 'not_configured', limiter: 'memory' };
  };
}

/** The use cases of the service over its repositories, caches and limiter; built once per app. */
export function createServices(deps: AppDeps) {
  const now = deps.clock ? () => deps.clock!().getTime() : Date.now;
  const metrics = deps.metrics ?? createMetrics();
  const catalog = createCatalogRepository(deps.db);
  const revision = createRevisionWatch({ readRevision: catalog.catalogRevision, checkMs: REVISION_CHECK_MS, now });
  const icons = createIconRepository(deps.db);
  const keyHours = createKeyHourCounter({ db: deps.db, now, logger: deps.logger });
  const searchEngine = catalogSearchEngine(catalog, now, { onBuilt: metrics.searchIndexBuilt, pause: deps.searchPause, knownRevision: revision.current });
  // A search answered from the previous index while a rebuild runs must not be served from a cache after
  // the rebuild: the caches' revision is odd while the index is behind the catalog, even once it caught up.
  const cacheRevision = async () => {
    const current = await revision.current();
    const index = searchEngine.indexRevision();
    return current * 2 + (index >= 0 && index < current ? 1 : 0);
  };
  const catalogChanged = async () => {
    revision.changed();
    await searchEngine.refresh().catch(() => undefined);
  };
  return {
    metrics,
    icons,
    /** Keys' requests per hour: open-service.ts starts its flush timer and stops it (writing the rest) on close. */
    keyHours,
    /** The process's in-memory search index: open-service.ts warms it before the service listens. */
    search: searchEngine,
    directory: createDirectoryService({
      catalog,
      cacheTtlMs: deps.config.statsCacheTtlMs,
      readCacheTtlMs: deps.config.readCacheTtlMs,
      revision: cacheRevision,
      now,
      searchEngine,
    }),
    // The website's data is cached by the site cache alone, which knows when the catalog changed; the same
    // directory operations (and search engine) without their own TTL cache, which would outlive a change.
    site: createSiteService({
      directory: createDirectoryService({ catalog, cacheTtlMs: 0, now, searchEngine }),
      catalog,
      queries: createSiteQueries(deps.db),
      iconVersions: icons.versionsBySlug,
      cache: createSiteCache({
        ttlMs: deps.config.siteCacheTtlMs,
        // The watch reads the database at most once per REVISION_CHECK_MS; asking it is free.
        revisionCheckMs: 0,
        maxEntries: SITE_CACHE_ENTRIES,
        readRevision: cacheRevision,
        now,
      }),
    }),
    ads: createAdsService(createSettingsRepository(deps.db)),
    submissions: createSubmissionsService(deps.db),
    editors: {
      auth: createEditorAuth({
        editors: createEditorsRepository(deps.db),
        limiter: createSignInLimiter(deps.db, { tableName: 'editor_sign_in_limits', nameKey: editorNameKey, ...EDITOR_SIGN_IN_LIMITS }),
        clock: deps.clock ?? (() => new Date()),
      }),
      // Its writes tell the watch, so this process's caches drop what they hold at once.
      // Its own edits are searchable when the editor's page comes back: the index is rebuilt first (visitors
      // meanwhile search the previous one; a failed rebuild is retried by the next search).
      editor: createCatalogEditor(deps.db, catalogChanged),
      // An import from the admin runs in the background; when it is applied, the same as an editor's save.
      imports: createImportService({ db: deps.db, changed: catalogChanged, logger: deps.logger }),
      readCatalog: createExportRepository(deps.db).readCatalog,
      edits: createCatalogEdits(deps.db),
      outbound: createOutboundAdmin({
        db: deps.db,
        fetcher: fetcherSettings(deps.config),
        iconRefreshDays: deps.config.iconRefreshDays,
        linkCheckIntervalHours: deps.config.linkCheckIntervalHours,
        changed: revision.changed,
      }),
      keys: {
        repository: createApiKeysRepository(deps.db),
        limiter: deps.limiter,
        keyVersion: deps.keyVersion,
        defaultRateLimitPerHour: deps.config.defaultRateLimitPerHour,
        keyHours,
        now,
      },
    },
    admit: createAccessControl({
      keys: createKeyLookup(createApiKeysRepository(deps.db), deps.keyVersion, now),
      limiter: deps.limiter,
      metrics,
      defaultRateLimitPerHour: deps.config.defaultRateLimitPerHour,
      anonymousRateLimitPerHour: deps.config.anonymousRateLimitPerHour,
      now,
      onKeyCounted: keyHours.count,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;

/** Builds the tool directory's Express app. It never listens. */
export function createApp(deps: AppDeps, services: Services = createServices(deps)): express.Express {
  const { metrics, directory, site, ads, admit, editors, icons, submissions } = services;
  const siteAssets = loadSiteAssets();
  const readiness = createReadiness(deps.db, deps.limiter);
  metrics.watchLimiterStore(deps.limiter.storeState);

  const app = express();
  // Only a configured proxy may name the client: anyone else reaching the port could pick the address the anonymous limit counts.
  app.set('trust proxy', [...deps.config.trustedProxies]);
  app.set('etag', false);
  app.disable('x-powered-by');

  const capacity = registerCapacityMetrics(metrics.registry, 'tools', deps.db);
  app.use(observeRequests({ logger: deps.logger, loggedQueryNames: LOGGED_QUERY_NAMES, observe: metrics.observeRequest, inFlight: capacity.inFlight }));

  // The API first: it is what is asked for most.
  app.all(API_PATH, createDirectoryHandler({ directory, ads, admit }));
  mountOperationalRoutes(app, { readiness, registry: metrics.registry });

  // The editors' admin before the website: its pages are not counted against a visitor's limit (sign-in has its own).
  app.use('/admin', createAdminRoutes({ ...editors, siteAssets, submissions, ads }));
  // Tools' icons, stored by the icon job and served from here (not counted against a visitor's limit: a page has dozens).
  app.use(createIconRoutes(icons));
  app.use(createSiteRoutes({ site, admit, assets: siteAssets, publicBaseUrl: deps.config.publicBaseUrl, submissions }));
  app.use(notFound);
  app.use(errorMiddleware);
  return app;
}
