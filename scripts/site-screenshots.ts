/**
 * `npm run screenshots`: the tool directory's website as visitors see it, written to docs/screenshots/.
 * Runs the tools service on an in-memory database with the sample directory, drives Debian's Chromium
 * (/usr/bin/chromium) through playwright-core, and keeps every request on this machine: the tools' own
 * icons are unreachable here, so each card shows its letter avatar (the fallback the site renders).
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createAppServer } from '@platform/kit';
import { loadConfig } from '../services/tools/src/config';
import { ensureDemoData } from '../services/tools/src/demo';
import { openToolsService } from '../services/tools/src/open-service';

const OUT_DIR = path.resolve(__dirname, '..', 'docs', 'screenshots');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

/** Visit counts for the demo, so that "most visited" reads like a directory people use. */
const DEMO_VISITS: Record<string, number> = {
  vscode: 12840,
  github: 11502,
  chatgpt: 10977,
  notion: 8311,
  figma: 7630,
  snipaste: 6409,
  tinypng: 5872,
  deepl: 5120,
  obsidian: 4480,
  canva: 3968,
};

async function main(): Promise<void> {
  const config = loadConfig({ DATABASE_URL: 'pglite:memory', LOG_LEVEL: 'silent', ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000' });
  const service = await openToolsService(config);
  const server = createAppServer(service.app);
  let browser: Browser | undefined;
  try {
    await ensureDemoData(service.db);
    await service.refreshSearch();
    for (const [slug, visits] of Object.entries(DEMO_VISITS)) await service.db('tools').where({ slug }).update({ visits });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    mkdirSync(OUT_DIR, { recursive: true });

    const shoot = async (
      name: string,
      pagePath: string,
      options: { viewport: { width: number; height: number }; fullPage?: boolean; type?: string; dark?: boolean; height?: number },
    ) => {
      const context = await browser!.newContext({ viewport: options.viewport, deviceScaleFactor: 1, locale: 'zh-CN', colorScheme: options.dark ? 'dark' : 'light' });
      await context.route((url) => url.origin !== base, (route) => route.abort('connectionrefused'));
      const page = await context.newPage();
      await page.goto(base + pagePath);
      if (options.type) {
        await page.getByRole('searchbox').first().pressSequentially(options.type, { delay: 60 });
        await page.waitForURL((url) => url.pathname.endsWith('/search'));
        await page.locator('#main [data-search-summary]').waitFor();
      }
      await page.waitForLoadState('networkidle');
      const file = path.join(OUT_DIR, `${name}.png`);
      // `height`: the top of a long page (the home page lists every category's tools).
      const clip = options.height ? { x: 0, y: 0, width: options.viewport.width, height: options.height } : undefined;
      await page.screenshot({ path: file, fullPage: options.fullPage ?? clip !== undefined, clip });
      await context.close();
      process.stdout.write(`${path.relative(process.cwd(), file)}\n`);
    };

    await shoot('home', '/', { viewport: DESKTOP, height: 1800 });
    await shoot('home-dark', '/', { viewport: DESKTOP, height: 1800, dark: true });
    await shoot('category', '/category/ai', { viewport: DESKTOP });
    await shoot('category-dark', '/category/ai', { viewport: DESKTOP, dark: true });
    await shoot('tool', '/tool/obsidian', { viewport: DESKTOP });
    await shoot('search-as-you-type', '/', { viewport: DESKTOP, type: 'jietu' });
    await shoot('home-en', '/en/', { viewport: DESKTOP });
    await shoot('phone-home', '/', { viewport: PHONE });
    await shoot('phone-tool', '/tool/snipaste', { viewport: PHONE, fullPage: true });
  } finally {
    await browser?.close();
    await new Promise((resolve) => server.close(resolve));
    await service.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`screenshots failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
