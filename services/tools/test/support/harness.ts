import type { Knex } from 'knex';
import pino from 'pino';
import type express from 'express';
import { openTestDatabase } from '@platform/kit/testing';
import { createApp, createServices, type Services } from '../../src/app';
import { loadConfig, type ToolsConfig } from '../../src/config';
import { createRequestLimiter, type RequestLimiter } from '../../src/ratelimit/request-limiter';
import { createApiKeysRepository } from '../../src/auth/api-keys-repository';
import { createApiKey } from '../../src/auth/api-keys';
import type { KeyVersion } from '../../src/auth/key-version';
import { createCatalogRepository } from '../../src/catalog/catalog-repository';
import { importCatalog, type ImportReport } from '../../src/catalog/importer';
import { toolsMigrations } from './service-migrations';

export const silentLogger = pino({ level: 'silent' });

export function testConfig(overrides: Record<string, string> = {}): ToolsConfig {
  return loadConfig({ LOG_LEVEL: 'silent', STATS_CACHE_TTL_MS: '0', READ_CACHE_TTL_MS: '0', DATABASE_URL: 'pglite:memory', ...overrides });
}

export interface Harness {
  db: Knex;
  databaseUrl: string;
  /** A fresh app (and, unless given, a fresh in-memory limiter) over the shared test database. */
  app(options?: { limiter?: RequestLimiter; config?: Record<string, string>; clock?: () => Date; logger?: pino.Logger; keyVersion?: KeyVersion }): express.Express;
  /** A fresh app with its services: a test that changes the catalog awaits `services.search.refresh()` before searching. */
  appWithServices(options?: { config?: Record<string, string>; clock?: () => Date }): { app: express.Express; services: Services };
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function openHarness(): Promise<Harness> {
  const database = await openTestDatabase('tools', toolsMigrations);
  const db = database.db;
  return {
    db,
    databaseUrl: database.url,
    app(options = {}) {
      const config = testConfig(options.config);
      const limiter = options.limiter ?? createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, logger: silentLogger });
      return createApp({ db, limiter, logger: options.logger ?? silentLogger, config, clock: options.clock, keyVersion: options.keyVersion });
    },
    appWithServices(options = {}) {
      const config = testConfig(options.config);
      const deps = { db, limiter: createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, logger: silentLogger }), logger: silentLogger, config, clock: options.clock };
      const services = createServices(deps);
      return { app: createApp(deps, services), services };
    },
    async reset() {
      await db.raw('TRUNCATE tools, categories, api_keys, app_settings RESTART IDENTITY CASCADE');
    },
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}

export async function createKey(db: Knex, options: { name?: string; rateLimitPerHour?: number | null; enabled?: boolean } = {}) {
  const repository = createApiKeysRepository(db);
  const { apiKey, record } = await createApiKey(repository, {
    name: options.name ?? `key-${Math.random().toString(36).slice(2)}`,
    rateLimitPerHour: options.rateLimitPerHour ?? null,
  });
  if (options.enabled === false) await repository.update(record.id, { enabled: false });
  return { apiKey, id: record.id };
}

export async function importJson(db: Knex, document: unknown): Promise<ImportReport> {
  return importCatalog(createCatalogRepository(db), JSON.stringify(document), 'json');
}

/** A small catalog of real tools, enough to exercise lists, details, categories and ranking. */
export const smallCatalog = {
  categories: [
    { slug: 'developer', name: '开发工具', description: '写代码用的工具', icon: '💻', sort_order: 2 },
    { slug: 'image', name: '图片处理', description: '压缩、编辑图片', icon: '🖼️', sort_order: 1 },
    { slug: 'empty', name: '空分类', description: '', icon: '', sort_order: 3 },
  ],
  tools: [
    { slug: 'vscode', name: 'Visual Studio Code', description: '微软出品的免费代码编辑器', url: 'https://code.visualstudio.com', icon: 'https://code.visualstudio.com/favicon.ico', category: 'developer', tags: ['编辑器', 'IDE'], is_featured: true },
    { slug: 'github', name: 'GitHub', description: '代码托管平台', url: 'https://github.com', icon: '', category: 'developer', tags: ['git'], is_featured: false },
    { slug: 'tinypng', name: 'TinyPNG', description: '在线压缩 PNG 和 JPEG 图片', url: 'https://tinypng.com', icon: '', category: 'image', tags: ['压缩', '图片'], is_featured: true },
    { slug: 'snipaste', name: 'Snipaste', description: '简单好用的截图贴图工具', url: 'https://www.snipaste.com', icon: '', category: 'image', tags: ['截图'], is_featured: false },
  ],
};
