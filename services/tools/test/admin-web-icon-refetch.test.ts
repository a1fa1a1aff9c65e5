import type express from 'express';
import type http from 'node:http';
import type request from 'supertest';
import sharp from 'sharp';
import { addEditor, signedIn } from './support/editors';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';
import { PUBLIC_TEST_HOST, startSite, type LoopbackSite } from './support/loopback-site';

// A tool's icon after its address changes: fetched again at once when an editor changes it in the admin,
// due at the icon job's next run when anything else (an import) does. Sites on loopback (127.0.0.2).

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;
const sites: LoopbackSite[] = [];

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  app = harness.app({ config: { OUTBOUND_ALLOW_CIDRS: `${PUBLIC_TEST_HOST}/32`, OUTBOUND_TIMEOUT_MS: '5000' } });
  ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await importJson(harness.db, smallCatalog);
});
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

const png = (colour: string) => sharp({ create: { width: 32, height: 32, channels: 4, background: colour } }).png().toBuffer();
async function iconSite(colour: string): Promise<LoopbackSite> {
  const icon = await png(colour);
  const handler: http.RequestListener = (req, res) => {
    if (req.url === '/favicon.ico') res.writeHead(200, { 'content-type': 'image/png' }).end(icon);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>site</title>');
  };
  const site = await startSite(handler);
  sites.push(site);
  return site;
}
const iconOf = (slug: string) =>
  harness.db('tool_icons as i').join('tools as t', 't.id', 'i.tool_id').where('t.slug', slug).first('i.source_url', 'i.next_try_at', 'i.failures');

/** Resolves when `check` holds (the background fetch has stored its result), or fails after a long wait. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('icons after an address changes', () => {
  it('when an editor changes a tool\'s address, then its icon is fetched from the new site right away', async () => {
    const before = await iconSite('#ff0000');
    const after = await iconSite('#0000ff');
    const id = Number((await harness.db('tools').where({ slug: 'github' }).first('id')).id);
    const form = { csrf, slug: 'github', name: 'GitHub', description: '代码托管平台', icon: '', category: 'developer', tags: 'git', sort_order: '0' };
    expect((await agent.post(`/admin/tools/${id}`).type('form').send({ ...form, url: before.origin })).status).toBe(303);
    await eventually(() => iconOf('github'), (icon) => icon?.source_url === `${before.origin}/favicon.ico`);

    expect((await agent.post(`/admin/tools/${id}`).type('form').send({ ...form, url: after.origin })).status).toBe(303);
    await eventually(() => iconOf('github'), (icon) => icon?.source_url === `${after.origin}/favicon.ico`);
    expect(after.requests).toContain('GET /favicon.ico');

    // Saving without changing the address fetches nothing.
    const requestsBefore = after.requests.length;
    expect((await agent.post(`/admin/tools/${id}`).type('form').send({ ...form, url: after.origin, name: 'GitHub!' })).status).toBe(303);
    expect(after.requests.length).toBe(requestsBefore);
  });

  it('when an import changes a tool\'s address, then its stored icon is due for the icon job at once', async () => {
    const toolId = Number((await harness.db('tools').where({ slug: 'github' }).first('id')).id);
    const later = new Date(Date.now() + 30 * 86400_000);
    await harness.db('tool_icons').insert({ tool_id: toolId, content: Buffer.from('png'), content_type: 'image/png', version: 'v1', source_url: 'https://github.com/favicon.ico', fetched_at: new Date(), next_try_at: later, failures: 2 });
    await importJson(harness.db, { categories: [], tools: [{ ...smallCatalog.tools[1], description: '只改描述' }] });
    expect((await iconOf('github')).next_try_at.getTime()).toBe(later.getTime());

    await importJson(harness.db, { categories: [], tools: [{ ...smallCatalog.tools[1], url: 'https://github.example' }] });
    const icon = await iconOf('github');
    expect(icon.failures).toBe(0);
    expect(icon.next_try_at.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
