import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from '@platform/kit/testing';
import { addEditor } from './editors';
import { importJson, openHarness, smallCatalog, type Harness } from './harness';

/** Serves `handler` on a free loopback port; `base` is its origin. */
export async function listenOnLoopback(handler: http.RequestListener): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Where the admin's screenshots go: ADMIN_SCREENSHOT_DIR (docs/screenshots when regenerating them), else a temp folder. */
export function adminScreenshotDir(tempPrefix: string): string {
  const dir = process.env.ADMIN_SCREENSHOT_DIR ? path.resolve(process.env.ADMIN_SCREENSHOT_DIR) : fs.mkdtempSync(path.join(os.tmpdir(), tempPrefix));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The editors' admin in Chromium, for a suite: a harness with `catalog` and the editor alice ("correct
 * horse"), the service on loopback (visitor limits out of the way, the site cache on), a Chromium, and
 * `newPage` giving each page a context of its own (desktop size, Chinese, light unless told; requests
 * to any other origin refused; console errors and page errors collected in `problems`).
 */
export function useAdminSite(options: { shotPrefix: string; catalog?: unknown }) {
  let harness: Harness;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let shotDir: string;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, options.catalog ?? smallCatalog);
    await addEditor(harness.db, 'alice', 'correct horse');
    ({ server, base } = await listenOnLoopback(harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000', SITE_CACHE_TTL_MS: '60000' } })));
    shotDir = adminScreenshotDir(options.shotPrefix);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await harness?.close();
  });

  return {
    get harness(): Harness {
      return harness;
    },
    get base(): string {
      return base;
    },
    get shotDir(): string {
      return shotDir;
    },
    problems,
    async newPage(contextOptions: BrowserContextOptions = {}): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, locale: 'zh-CN', colorScheme: 'light', ...contextOptions });
      contexts.push(context);
      await context.route((url) => url.origin !== base, (route) => route.abort('connectionrefused'));
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      return page;
    },
  };
}
