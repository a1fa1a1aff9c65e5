import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import pino from 'pino';
import { createFrontDoor } from '../../../../../scripts/lib/front-door';
import { loadV1Rewrites } from '../../../../../scripts/lib/v1-rewrites';
import { WEB_APP_BUILD_DIR } from '../../../../../scripts/lib/web-app';
import { loadConfig as loadToolsConfig } from '../../../../tools/src/config';
import { openToolsService } from '../../../../tools/src/open-service';
import type { Services } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { openImagesService } from '../../../src/open-service';

export interface WebPlatform {
  /** http://127.0.0.1:<port>: the app is at `${baseUrl}/app/`, and PUBLIC_BASE_URL is this too. */
  baseUrl: string;
  services: Services;
  /** The images database, for rows a test needs in numbers no upload loop would make. */
  db: Knex;
  /** Calls the image API as any client would (X-API-Token header), answering the envelope. */
  api(action: string, options?: { token?: string; method?: 'GET' | 'POST'; form?: Record<string, string> | FormData; query?: Record<string, string> }): Promise<{ code: number; msg: string; data?: any }>;
  close(): Promise<void>;
}

/**
 * The platform as `npm start` runs it (the same front door, both services, embedded PGlite in
 * memory), on a random port of 127.0.0.1, serving the built web app at /app/.
 */
export async function startWebPlatform(env: Record<string, string> = {}): Promise<WebPlatform> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const storageDir = mkdtempSync(path.join(os.tmpdir(), 'web-app-'));
  const logger = pino({ level: 'silent' });
  const images = await openImagesService(
    loadConfig({ DATABASE_URL: 'pglite:memory', STORAGE_DIR: storageDir, PUBLIC_BASE_URL: baseUrl, LOG_LEVEL: 'silent', ...env }),
    { logger },
  );
  const tools = await openToolsService(loadToolsConfig({ DATABASE_URL: 'pglite:memory', LOG_LEVEL: 'silent' }), { logger });
  const front = createFrontDoor({
    imagesApp: images.app,
    toolsApp: tools.app,
    imagesPublicDir: path.join(storageDir, 'public'),
    v1Rules: loadV1Rewrites(),
    webAppDir: WEB_APP_BUILD_DIR,
    probes: {
      readiness: async () => ({ status: 'ok' }),
      metrics: async () => '',
    },
  });
  server.on('request', front);

  return {
    baseUrl,
    services: images.services,
    db: images.db,
    async api(action, options = {}) {
      const query = new URLSearchParams({ action, ...options.query });
      const headers: Record<string, string> = options.token ? { 'X-API-Token': options.token } : {};
      const body = options.form instanceof FormData ? options.form : options.form ? new URLSearchParams(options.form) : undefined;
      const res = await fetch(`${baseUrl}/api/image.php?${query.toString()}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body });
      return (await res.json()) as { code: number; msg: string; data?: any };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([images.close(), tools.close()]);
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}
