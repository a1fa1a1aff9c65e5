import fs from 'node:fs';
import type http from 'node:http';
import type express from 'express';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { launchChromium } from '@platform/kit/testing';
import { createCatalogRepository } from '../../src/catalog/catalog-repository';
import { importCatalog } from '../../src/catalog/importer';
import { sampleDatasetPath } from '../../src/demo';
import { listenOnLoopback } from './browser-site';
import { openHarness, type Harness } from './harness';

/** A harness holding the sample directory (src/demo's dataset), every tool of it accepted. */
async function openSampleHarness(): Promise<Harness> {
  const harness = await openHarness();
  const report = await importCatalog(createCatalogRepository(harness.db), fs.readFileSync(sampleDatasetPath(), 'utf8'), 'json');
  expect(report.tools.rejected).toEqual([]);
  return harness;
}

/** The website's app, the visitor limits out of the way (a suite reads many pages from one address). */
const siteApp = (harness: Harness) => harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000' } });

/**
 * The website over HTTP, for a suite: a harness with the sample directory, closed after the suite, and
 * `app`, a new one for each test (its site cache and limits fresh).
 */
export function useSampleSite(): { readonly harness: Harness; readonly app: express.Express } {
  let harness: Harness;
  let app: express.Express;
  beforeAll(async () => {
    harness = await openSampleHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(() => {
    app = siteApp(harness);
  });
  return {
    get harness() {
      return harness;
    },
    get app() {
      return app;
    },
  };
}

/**
 * The website in Chromium, for a suite: a harness with the sample directory (`seed` adds what the suite
 * needs before the service starts), the service on loopback at `base`, and a Chromium. The contexts of
 * `newContext` are closed after each test.
 */
export function useSampleSiteInChromium(seed: (harness: Harness) => Promise<void> = async () => {}) {
  let harness: Harness;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    harness = await openSampleHarness();
    await seed(harness);
    ({ server, base } = await listenOnLoopback(siteApp(harness)));
    browser = await launchChromium();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await harness?.close();
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  return {
    get harness(): Harness {
      return harness;
    },
    get base(): string {
      return base;
    },
    async newContext(options: BrowserContextOptions): Promise<BrowserContext> {
      const context = await browser.newContext(options);
      contexts.push(context);
      return context;
    },
  };
}
