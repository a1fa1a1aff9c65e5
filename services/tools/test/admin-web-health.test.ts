import type express from 'express';
import type http from 'node:http';
import request from 'supertest';
import sharp from 'sharp';
import { addEditor, csrfIn, signedIn } from './support/editors';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';
import { PUBLIC_TEST_HOST, startSite, type LoopbackSite } from './support/loopback-site';

// Link health and icons in the web admin, against tool sites started on loopback (127.0.0.2 is the
// tests' "public internet"; every other private address stays refused).

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let noAllowApp: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;
const sites: LoopbackSite[] = [];

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  app = harness.app({ config: { OUTBOUND_ALLOW_CIDRS: `${PUBLIC_TEST_HOST}/32`, OUTBOUND_TIMEOUT_MS: '5000', SITE_CACHE_TTL_MS: '60000' } });
  noAllowApp = harness.app({ config: { OUTBOUND_TIMEOUT_MS: '5000' } });
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

async function site(handler: http.RequestListener): Promise<LoopbackSite> {
  const started = await startSite(handler);
  sites.push(started);
  return started;
}

const toolId = async (slug: string) => Number((await harness.db('tools').where({ slug }).first('id')).id);
const png = (colour: string) => sharp({ create: { width: 32, height: 32, channels: 4, background: colour } }).png().toBuffer();
const revision = async () => Number((await harness.db('catalog_revision').where({ id: 1 }).first('revision')).revision);
const iconRow = async (slug: string) => harness.db('tool_icons as i').join('tools as t', 't.id', 'i.tool_id').where('t.slug', slug).first('i.version', 'i.override_url', 'i.override_file', 'i.source_url');

describe('link health in the admin', () => {
  it('when signed out, then the page and the check button send to sign-in and nothing is checked', async () => {
    const page = await request(app).get('/admin/links');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/admin/?next=%2Fadmin%2Flinks');
    const check = await request(app).post('/admin/links/github/check').type('form').send({ csrf });
    expect(check.status).toBe(303);
    expect(check.headers.location).toBe('/admin/');
    expect(Number((await harness.db('link_checks').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  it('when "check now" is pressed without the form token, then it is refused (403) and nothing is checked', async () => {
    const res = await agent.post('/admin/links/github/check').type('form').send({ csrf: 'forged' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('表单已过期或来源不明');
    expect(Number((await harness.db('link_checks').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  it('when an editor checks a dead and a live tool, then the counts, the broken list with its reason and the history show it', async () => {
    const dead = await site((_req, res) => res.writeHead(404).end('gone'));
    const live = await site((_req, res) => res.writeHead(200).end('ok'));
    await harness.db('tools').where({ slug: 'github' }).update({ url: `${dead.origin}/repo` });
    await harness.db('tools').where({ slug: 'tinypng' }).update({ url: `${live.origin}/` });

    const checkedDead = await agent.post('/admin/links/github/check').type('form').send({ csrf });
    expect(checkedDead.status).toBe(303);
    expect(checkedDead.headers.location).toBe('/admin/links/github?checked=broken');
    expect(dead.requests.length).toBeGreaterThan(0);
    const checkedLive = await agent.post('/admin/links/tinypng/check').type('form').send({ csrf });
    expect(checkedLive.headers.location).toBe('/admin/links/tinypng?checked=ok');

    const list = await agent.get('/admin/links');
    expect(list.status).toBe(200);
    expect(list.text).toContain('<strong data-count="ok">1</strong>');
    expect(list.text).toContain('<strong data-count="broken">1</strong>');
    expect(list.text).toContain('<strong data-count="unknown">0</strong>');
    expect(list.text).toContain(`${dead.origin}/repo`);
    expect(list.text).toContain('(404)');
    expect(list.text).not.toContain(`${live.origin}/`);
    expect((await agent.get('/admin/links?status=unknown')).text).toContain('没有这种状态的链接。');
    expect((await agent.get('/admin/links?status=all')).text).toContain(`${live.origin}/`);

    const history = await agent.get('/admin/links/github?checked=broken');
    expect(history.text).toContain('已检查：失效。');
    expect(history.text).toContain('检查记录：GitHub');
    expect(history.text).toMatch(/<td class="num">404<\/td>/);
    expect((await agent.get('/admin/links/no-such-tool')).status).toBe(404);
  });
});

describe('icons in the tool edit page', () => {
  it('when no icon is stored, then the edit page shows the letter avatar and the icon forms', async () => {
    const page = await agent.get(`/admin/tools/${await toolId('github')}/edit`);
    expect(page.text).toContain('data-letter="G"');
    expect(page.text).toContain('还没有存储的图标，网站显示首字母。');
    expect(page.text).toContain('enctype="multipart/form-data"');
  });

  it('when an editor overrides by a URL on a (loopback) site, then the icon is stored and the public page shows it at once', async () => {
    const icon = await png('#3366ff');
    const host = await site((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(icon));
    const id = await toolId('github');
    const before = await agent.get('/tool/github');
    expect(before.text).not.toContain('/icons/github?v=');
    const revisionBefore = await revision();

    const res = await agent.post(`/admin/tools/${id}/icon/url`).type('form').send({ csrf, icon_url: `${host.origin}/logo.png` });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/admin/tools/${id}/edit?done=icon#icon`);
    const stored = await iconRow('github');
    expect(stored).toMatchObject({ override_url: `${host.origin}/logo.png`, override_file: false, source_url: `${host.origin}/logo.png` });
    // The revision other replicas watch moved too (the tool_icons triggers), not only this process's caches.
    expect(await revision()).toBeGreaterThan(revisionBefore);
    expect((await agent.get('/tool/github')).text).toContain(`/icons/github?v=${stored.version}`);
    const edit = await agent.get(`/admin/tools/${id}/edit?done=icon`);
    expect(edit.text).toContain('图标已更新。');
    expect(edit.text).toContain(`/icons/github?v=${stored.version}`);

    const cleared = await agent.post(`/admin/tools/${id}/icon/clear`).type('form').send({ csrf });
    expect(cleared.headers.location).toBe(`/admin/tools/${id}/edit?done=icon_cleared#icon`);
    expect((await iconRow('github')).override_url).toBeNull();
  });

  it('when "fetch again" is pressed, then the icon is fetched from the site now; a site with none is named in the form', async () => {
    const icon = await png('#22aa44');
    const host = await site((req, res) => (req.url === '/favicon.ico' ? res.writeHead(200, { 'content-type': 'image/png' }).end(icon) : res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head></head></html>')));
    const bare = await site((_req, res) => res.writeHead(404).end());
    await harness.db('tools').where({ slug: 'github' }).update({ url: `${host.origin}/` });
    await harness.db('tools').where({ slug: 'tinypng' }).update({ url: `${bare.origin}/`, icon: '' });

    const res = await agent.post(`/admin/tools/${await toolId('github')}/icon/refresh`).type('form').send({ csrf });
    expect(res.status).toBe(303);
    expect((await iconRow('github')).source_url).toBe(`${host.origin}/favicon.ico`);

    const none = await agent.post(`/admin/tools/${await toolId('tinypng')}/icon/refresh`).type('form').send({ csrf });
    expect(none.status).toBe(422);
    expect(none.text).toContain('无法获取图标：');
    expect(none.text).toContain('/favicon.ico: HTTP 404');
    expect((await iconRow('tinypng')).version).toBeNull();
  });

  it('when the URL is a private address and the allow-list is off, then it is refused by name and nothing is stored', async () => {
    const local = await startSite((_req, res) => res.writeHead(200).end('x'), '127.0.0.1');
    sites.push(local);
    const signedInNoAllow = await signedIn(noAllowApp, 'alice', 'correct horse');
    const id = await toolId('github');
    const res = await signedInNoAllow.agent.post(`/admin/tools/${id}/icon/url`).type('form').send({ csrf: signedInNoAllow.csrf, icon_url: `${local.origin}/logo.png` });
    expect(res.status).toBe(422);
    expect(res.text).toContain('无法获取图标：地址不允许：私有、回环或本机地址不会被访问');
    expect(res.text).toContain(`value="${local.origin}/logo.png"`);
    expect(local.requests).toEqual([]);
    expect(await iconRow('github')).toBeUndefined();
  });

  it('when an uploaded file is not an image, then it is refused with its message and nothing is stored', async () => {
    const id = await toolId('github');
    const res = await agent.post(`/admin/tools/${id}/icon/file`).field('csrf', csrf).attach('icon_file', Buffer.from('<html>not an icon</html>'), 'icon.png');
    expect(res.status).toBe(422);
    expect(res.text).toContain('不是可用的图标：not an image (unknown magic bytes)');
    expect(res.text).toContain('aria-invalid="true" aria-describedby="field-icon_file-error"');
    expect(await iconRow('github')).toBeUndefined();
  });

  it('when an uploaded file is over the limit, then it is refused by its size and nothing is stored', async () => {
    const id = await toolId('github');
    const res = await agent.post(`/admin/tools/${id}/icon/file`).field('csrf', csrf).attach('icon_file', Buffer.alloc(600 * 1024, 1), 'big.png');
    expect(res.status).toBe(422);
    expect(res.text).toContain('文件太大：最大 512 KB');
    expect(await iconRow('github')).toBeUndefined();
  });

  it('when a real image is uploaded, then it is stored as the file override; without the form token it is refused', async () => {
    const id = await toolId('github');
    const forged = await agent.post(`/admin/tools/${id}/icon/file`).field('csrf', 'forged').attach('icon_file', await png('#ff0000'), 'red.png');
    expect(forged.status).toBe(403);
    expect(await iconRow('github')).toBeUndefined();
    const signedOut = await request(app).post(`/admin/tools/${id}/icon/file`).field('csrf', csrf).attach('icon_file', await png('#ff0000'), 'red.png');
    expect(signedOut.status).toBe(303);
    expect(await iconRow('github')).toBeUndefined();

    const res = await agent.post(`/admin/tools/${id}/icon/file`).field('csrf', csrf).attach('icon_file', await png('#ff0000'), 'red.png');
    expect(res.status).toBe(303);
    const stored = await iconRow('github');
    expect(stored).toMatchObject({ override_file: true, source_url: 'file' });
    const served = await agent.get(`/icons/github?v=${stored.version}`);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
  });
});

describe('visits in the admin', () => {
  it('when tools have visits, then the list sorts by them on request and shows the total', async () => {
    await harness.db('tools').where({ slug: 'tinypng' }).update({ visits: 70 });
    await harness.db('tools').where({ slug: 'github' }).update({ visits: 5 });
    const page = await agent.get('/admin/tools?sort=visits');
    expect(page.text).toContain('全部工具共 75 次访问');
    const order = [...page.text.matchAll(/<span class="slug">([^<]+)<\/span>/g)].map((match) => match[1]);
    expect(order.slice(0, 2)).toEqual(['tinypng', 'github']);
    expect(page.text).toContain('aria-sort="descending"');
    expect(csrfIn(page.text)).toBe(csrf);
  });
});
