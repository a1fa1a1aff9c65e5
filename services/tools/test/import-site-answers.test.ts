import request from 'supertest';
import { createApp, createServices } from '../src/app';
import { createRequestLimiter } from '../src/ratelimit/request-limiter';
import { generateToolDirectory } from '../src/catalog/search-generated-directory';
import { importJson, openHarness, silentLogger, testConfig, type Harness } from './support/harness';

// "An import never stalls the website": while an import applied from the admin is being indexed for search,
// the site's pages answer. The search index is rebuilt in chunks with the event loop let go between them;
// this test looks in at one of those moments (the `searchPause` hook) and asks for pages there, before the
// import is done. A rebuild that held the process from start to end has no such moment.

jest.setTimeout(180_000);

let harness: Harness;
const directory = generateToolDirectory(400).document;

beforeAll(async () => {
  harness = await openHarness();
  await harness.reset();
  await importJson(harness.db, directory);
});
afterAll(async () => {
  await harness.close();
});

it('when an applied import of 400 changed tools is being indexed, then pages requested meanwhile answer before the import is done, and the new text is searchable after it', async () => {
  let midImport: (() => Promise<void>) | undefined;
  let pagesMidImport: Promise<{ home: request.Response; search: request.Response; tool: request.Response }> | undefined;
  const config = testConfig({ SITE_CACHE_TTL_MS: '60000' });
  const deps = {
    db: harness.db,
    limiter: createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, logger: silentLogger }),
    logger: silentLogger,
    config,
    // Between two chunks of a rebuild: the first one after the import was applied asks for the pages, and
    // the rebuild goes on only once they answered.
    searchPause: async () => {
      const look = midImport;
      midImport = undefined;
      if (look) await look();
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
  const services = createServices(deps);
  const app = createApp(deps, services);
  await services.search.refresh();
  const slug = directory.tools[7]!.slug;
  expect((await request(app).get(`/search?q=${encodeURIComponent(`${directory.tools[7]!.name} zzupdated`)}`)).text).not.toContain(`/tool/${slug}`);

  const changed = { categories: directory.categories, tools: directory.tools.map((tool) => ({ ...tool, description: `${tool.description} zzupdated` })) };
  const imports = services.editors.imports;
  const dryRun = await imports.startDryRun({ fileName: 'directory.json', data: Buffer.from(JSON.stringify(changed)), editorId: null });
  await imports.settled();

  let importDone = false;
  midImport = async () => {
    pagesMidImport = (async () => ({
      home: await request(app).get('/'),
      search: await request(app).get(`/search?q=${encodeURIComponent(directory.tools[7]!.name)}`),
      tool: await request(app).get(`/tool/${slug}`),
    }))();
    await pagesMidImport;
    expect(importDone).toBe(false);
  };
  const runId = await imports.apply(dryRun, null);
  expect(runId).toEqual(expect.any(Number));
  await imports.settled();
  importDone = true;

  // The pages were asked for in the middle of the rebuild, and answered there.
  expect(pagesMidImport).toBeDefined();
  const pages = await pagesMidImport!;
  expect(pages.home.status).toBe(200);
  expect(pages.search.status).toBe(200);
  expect(pages.search.text).toContain(`/tool/${slug}`);
  expect(pages.tool.status).toBe(200);
  expect(pages.tool.text).toContain('zzupdated');
  expect((await imports.find(runId!))?.state).toBe('done');
  // Once the import is done, its text is searchable.
  expect((await request(app).get(`/search?q=${encodeURIComponent(`${directory.tools[7]!.name} zzupdated`)}`)).text).toContain(`/tool/${slug}`);
});
