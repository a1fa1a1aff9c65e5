/**
 * Icons (src/icons/): found on the tools' own sites (started here on loopback, hostile ones included),
 * stored, served from our origin, and shown on the website only when stored.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import request from 'supertest';
import sharp from 'sharp';
import { runAdminCommand } from '../src/admin/commands';
import { createIconRepository } from '../src/icons/icon-repository';
import { createIconService } from '../src/icons/icon-service';
import { createFetcher, type Fetcher } from '../src/outbound/fetcher';
import { openHarness, type Harness } from './support/harness';
import { startSite, TEST_ALLOW_CIDRS, type LoopbackSite } from './support/loopback-site';

let harness: Harness;
let fetcher: Fetcher;
const sites: LoopbackSite[] = [];
let clock = new Date('2026-11-27T12:00:00Z');

beforeAll(async () => {
  harness = await openHarness();
  fetcher = createFetcher({ allowCidrs: TEST_ALLOW_CIDRS, timeoutMs: 3000 });
});
afterAll(async () => {
  await fetcher.close();
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  clock = new Date('2026-11-27T12:00:00Z');
  await harness.db('categories').insert({ slug: 'dev', name: '开发' });
});
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
const png = (size: number, colour = '#e11d48') => sharp({ create: { width: size, height: size, channels: 4, background: colour } }).png().toBuffer();

/** An .ico holding one PNG picture, as modern favicon.ico files do. */
async function ico(size: number): Promise<Buffer> {
  const picture = await png(size, '#2563eb');
  const header = Buffer.from([0, 0, 1, 0, 1, 0]);
  const entry = Buffer.alloc(16);
  entry.writeUInt8(size % 256, 0);
  entry.writeUInt8(size % 256, 1);
  entry.writeUInt16LE(1, 4);
  entry.writeUInt16LE(32, 6);
  entry.writeUInt32LE(picture.length, 8);
  entry.writeUInt32LE(6 + 16, 12);
  return Buffer.concat([header, entry, picture]);
}

type Routes = Record<string, (res: http.ServerResponse) => void>;
const send = (type: string, body: string | Buffer) => (res: http.ServerResponse) => res.writeHead(200, { 'content-type': type }).end(body);
const page = (head: string) => send('text/html; charset=utf-8', `<!doctype html><html><head><title>t</title>${head}</head><body><link rel="icon" href="/in-body.png"></body></html>`);

async function site(routes: Routes): Promise<LoopbackSite> {
  const started = await startSite((req, res) => {
    const route = routes[req.url!.split('?')[0]!];
    if (route) route(res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not found</h1>');
  });
  sites.push(started);
  return started;
}

async function addTool(slug: string, url: string, icon = ''): Promise<number> {
  const categoryId = (await harness.db('categories').where({ slug: 'dev' }).first('id')).id as number;
  const [row] = await harness.db('tools').insert({ slug, name: `${slug[0]!.toUpperCase()}${slug.slice(1)} tool`, description: 'd', url, icon, category_id: categoryId }).returning('id');
  return (row as { id: number }).id;
}

const service = () => createIconService({ icons: createIconRepository(harness.db), fetcher, refreshDays: 30, now: () => clock });
const refresh = async (slug: string) => service().refresh((await createIconRepository(harness.db).targetBySlug(slug))!);
const stateOf = async (slug: string) => (await createIconRepository(harness.db).states()).find((state) => state.slug === slug)!;
const app = () => harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000', SITE_CACHE_TTL_MS: '0' } });

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdminCommand(argv, { db: harness.db, defaultRateLimitPerHour: 1000, outbound: { allowCidrs: TEST_ALLOW_CIDRS, timeoutMs: 3000 }, iconRefreshDays: 30, out: (line) => out.push(line), err: (line) => err.push(line) });
  return { status, out, err };
}

describe('finding an icon', () => {
  it('when the page links icons, then the best one (apple-touch over a 16 px icon) is stored as our PNG and served from /icons/<slug>', async () => {
    const target = await site({
      '/': page('<link rel="icon" href="/small.png" sizes="16x16"><link rel="apple-touch-icon" href="/touch.png">'),
      '/small.png': send('image/png', await png(16)),
      '/touch.png': send('image/png', await png(180)),
    });
    await addTool('alpha', `${target.origin}/`);
    expect(await refresh('alpha')).toEqual({ slug: 'alpha', ok: true, sourceUrl: `${target.origin}/touch.png` });
    expect(target.requests).toEqual(['GET /', 'GET /touch.png']);

    const state = await stateOf('alpha');
    expect(state).toMatchObject({ failures: 0, sourceUrl: `${target.origin}/touch.png`, fetchedAt: clock, nextTryAt: new Date('2026-12-27T12:00:00Z') });
    const res = await request(app()).get(`/icons/alpha?v=${state.version}`).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.etag).toBe(`"${state.version}"`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(await sharp(res.body as Buffer).metadata()).toMatchObject({ format: 'png', width: 128, height: 128 });

    const unversioned = await request(app()).get('/icons/alpha');
    expect(unversioned.headers['cache-control']).toBe('public, max-age=3600');
    const revalidated = await request(app()).get('/icons/alpha').set('If-None-Match', `"${state.version}"`);
    expect(revalidated.status).toBe(304);
    expect((await request(app()).get('/icons/nobody')).status).toBe(404);
  });

  it('when the page links no icon, then the manifest icons and then /favicon.ico are tried, an .ico read as the picture inside', async () => {
    const withManifest = await site({
      '/': page('<link rel="manifest" href="/app.webmanifest">'),
      '/app.webmanifest': send('application/manifest+json', JSON.stringify({ icons: [{ src: 'icons/192.png', sizes: '192x192' }, { src: 'icons/mono.png', sizes: '512x512', purpose: 'monochrome' }] })),
      '/icons/192.png': send('image/png', await png(192)),
    });
    await addTool('manifested', `${withManifest.origin}/`);
    expect(await refresh('manifested')).toMatchObject({ ok: true, sourceUrl: `${withManifest.origin}/icons/192.png` });

    const bare = await site({ '/': page(''), '/favicon.ico': send('image/x-icon', await ico(48)) });
    await addTool('bare', `${bare.origin}/`);
    expect(await refresh('bare')).toMatchObject({ ok: true, sourceUrl: `${bare.origin}/favicon.ico` });
    const served = await request(app()).get('/icons/bare').buffer(true);
    expect(await sharp(served.body as Buffer).metadata()).toMatchObject({ format: 'png', width: 48, height: 48 });
  });

  it('when the icon is an SVG with script, then what is served is a PNG rendering of it, with no markup left', async () => {
    const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)"><script>alert(document.cookie)</script><image href="http://169.254.169.254/x.png" width="10" height="10"/><rect width="10" height="10" fill="#16a34a"/></svg>`;
    const target = await site({ '/': page('<link rel="icon" type="image/svg+xml" href="/logo.svg">'), '/logo.svg': send('image/svg+xml', svg) });
    await addTool('vector', `${target.origin}/`);
    expect(await refresh('vector')).toMatchObject({ ok: true });
    const res = await request(app()).get('/icons/vector').buffer(true);
    expect(res.headers['content-type']).toBe('image/png');
    const body = res.body as Buffer;
    expect(body.subarray(0, 4)).toEqual(PNG_MAGIC);
    expect(body.toString('latin1')).not.toMatch(/script|svg|alert/i);
    const { data } = await sharp(body).raw().toBuffer({ resolveWithObject: true });
    expect([data[0], data[1], data[2]]).toEqual([0x16, 0xa3, 0x4a]);
  });

  it('when every candidate is hostile (HTML posing as an image, a huge file, a redirect to a private address), then nothing is stored and the next try is an hour away, then two', async () => {
    const target = await site({
      '/': page('<link rel="icon" href="/fake.png"><link rel="icon" href="/huge.png" sizes="64x64"><link rel="apple-touch-icon" href="/to-metadata">'),
      '/fake.png': send('image/png', '<html><script>alert(1)</script></html>'),
      '/huge.png': send('image/png', Buffer.concat([PNG_MAGIC, Buffer.alloc(2 * 1024 * 1024)])),
      '/to-metadata': (res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
      '/favicon.ico': send('image/x-icon', Buffer.from('GIF89a but not really')),
    });
    await addTool('hostile', `${target.origin}/`);
    const outcome = await refresh('hostile');
    expect(outcome.ok).toBe(false);
    const error = (outcome as { error: string }).error;
    expect(error).toContain('/fake.png: not an image (unknown magic bytes)');
    expect(error).toContain('/huge.png: too-large');
    expect(error).toContain('/to-metadata: blocked-address');
    expect(error).toContain('/favicon.ico: the image does not decode');
    expect(await stateOf('hostile')).toMatchObject({ version: null, failures: 1, nextTryAt: new Date('2026-11-27T13:00:00Z') });
    expect((await request(app()).get('/icons/hostile')).status).toBe(404);

    clock = new Date('2026-11-27T13:00:00Z');
    expect(await createIconRepository(harness.db).dueTargets(clock, 10)).toHaveLength(1);
    await refresh('hostile');
    expect(await stateOf('hostile')).toMatchObject({ failures: 2, nextTryAt: new Date('2026-11-27T15:00:00Z') });
    expect(await createIconRepository(harness.db).dueTargets(clock, 10)).toEqual([]);
  });

  it('when a stored icon cannot be fetched again, then the old one stays served', async () => {
    const target = await site({ '/': page('<link rel="icon" href="/i.png">'), '/i.png': send('image/png', await png(64)) });
    await addTool('steady', `${target.origin}/`);
    await refresh('steady');
    const version = (await stateOf('steady')).version;
    await target.close();
    sites.splice(0);
    expect((await refresh('steady')).ok).toBe(false);
    expect(await stateOf('steady')).toMatchObject({ version, failures: 1 });
    expect((await request(app()).get('/icons/steady')).status).toBe(200);
  });
});

describe('the website', () => {
  it('when a tool has a stored icon, then its card shows our URL; when it has none, then the letter avatar alone, even with an imported icon URL', async () => {
    const target = await site({ '/': page('<link rel="icon" href="/i.png">'), '/i.png': send('image/png', await png(32)) });
    await addTool('shown', `${target.origin}/`);
    await addTool('lettered', 'https://example.invalid/', 'https://example.invalid/broken.png');
    const before = await request(app()).get('/tool/shown');
    expect(before.text).toMatch(/<span class="tool-icon tool-icon--large hue-\d" data-letter="S" aria-hidden="true"><\/span>/);

    await refresh('shown');
    const { version } = await stateOf('shown');
    const res = await request(app()).get('/tool/shown');
    expect(res.text).toMatch(new RegExp(`<span class="tool-icon tool-icon--large hue-\\d" data-letter="S" aria-hidden="true"><img src="/icons/shown\\?v=${version}" alt="" width="64" height="64" loading="lazy" decoding="async"></span>`));
    expect(res.headers['content-security-policy']).toContain("img-src 'self';");
    const lettered = await request(app()).get('/tool/lettered');
    expect(lettered.text).toMatch(/<span class="tool-icon tool-icon--large hue-\d" data-letter="L" aria-hidden="true"><\/span>/);
    expect(lettered.text).not.toContain('example.invalid/broken.png');
  });
});

describe('admin CLI', () => {
  it('when icons:fetch runs without arguments, then the due icons are fetched and reported, and exit 1 tells of a failure', async () => {
    const good = await site({ '/': page('<link rel="icon" href="/i.png">'), '/i.png': send('image/png', await png(32)) });
    await addTool('good', `${good.origin}/`);
    await addTool('dead', 'http://127.0.0.2:1/');
    const run = await cli('icons:fetch');
    expect(run.status).toBe(1);
    expect(run.out).toEqual([`ok\tgood\t${good.origin}/i.png`, 'failed\tdead\tpage: refused', 'icons: 1 stored, 1 failed']);
    const list = await cli('icons:list', '--failing');
    expect(list.out.slice(1).map((line) => line.split('\t').slice(0, 2))).toEqual([['dead', '-']]);
  });

  it('when icons:set gives a URL or a file, then that icon is stored; a non-image file is refused', async () => {
    const elsewhere = await site({ '/brand.png': send('image/png', await png(100)) });
    const home = await site({ '/': page('<link rel="icon" href="/i.png">'), '/i.png': send('image/png', await png(32)) });
    await addTool('branded', `${home.origin}/`);
    const byUrl = await cli('icons:set', 'branded', '--url', `${elsewhere.origin}/brand.png`);
    expect(byUrl).toMatchObject({ status: 0, out: [`ok\tbranded\t${elsewhere.origin}/brand.png`] });
    // The override is tried first on every later refresh too.
    await refresh('branded');
    expect((await stateOf('branded')).sourceUrl).toBe(`${elsewhere.origin}/brand.png`);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icons-'));
    fs.writeFileSync(path.join(dir, 'logo.png'), await png(20));
    fs.writeFileSync(path.join(dir, 'evil.png'), '<svg onload=alert(1)>');
    expect(await cli('icons:set', 'branded', '--file', path.join(dir, 'logo.png'))).toMatchObject({ status: 0 });
    expect(await stateOf('branded')).toMatchObject({ overrideFile: true, sourceUrl: 'file' });
    expect(await createIconRepository(harness.db).dueTargets(new Date('2030-01-01T00:00:00Z'), 10)).toEqual([]);
    const refused = await cli('icons:set', 'branded', '--file', path.join(dir, 'evil.png'));
    expect(refused.status).toBe(1);
    expect(refused.err[0]).toMatch(/^error: not accepted as an icon: /);
    expect(await cli('icons:set', 'nobody', '--clear')).toMatchObject({ status: 1, err: ['error: no tool with slug "nobody"'] });
    expect((await cli('icons:set', 'branded')).status).toBe(2);
    fs.rmSync(dir, { recursive: true });
  });
});
