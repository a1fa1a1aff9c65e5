import request from 'supertest';
import { createTestUser, distinctBytes, fixtureBytes, openTestService, type TestService } from './support/harness';

// Album share links (/s/<token>) and public image pages (/p/<key>), as their owner and a viewer use them.

const API = '/api/image.php';
const HOUR = 3_600_000;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const PREVIEW_BOTS = [
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  'Twitterbot/1.0',
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  'TelegramBot (like TwitterBot)',
  'WhatsApp/2.23.20.0 A',
  'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
];

let svc: TestService;
let offsetMs = 0;
beforeAll(async () => {
  svc = await openTestService({ SIGN_IN_FAILURES_PER_ACCOUNT: '3' }, { clock: () => new Date(Date.now() + offsetMs) });
});
afterAll(async () => svc?.close());
beforeEach(async () => {
  offsetMs = 0;
  await svc.reset();
});

const local = (absoluteUrl: string) => absoluteUrl.replace('http://img.test', '');
const action = (name: string, token: string, fields: Record<string, unknown> = {}) => request(svc.app).post(`${API}?action=${name}`).set('X-API-Token', token).send(fields);
const read = (name: string, token: string, query = '') => request(svc.app).get(`${API}?action=${name}${query}`).set('X-API-Token', token);

async function upload(token: string, categoryId: number, file = 'tiny.png') {
  const res = await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token).field('category_id', String(categoryId)).attach('file', /\.(png|jpe?g)$/.test(file) ? distinctBytes(file) : fixtureBytes(file), file);
  expect(res.body.code).toBe(0);
  return res.body.data as { id: number; url: string; thumb_url: string; original_name: string; links: { delete: string } };
}

async function album(token: string, name = '旅行') {
  const res = await action('create_category', token, { name });
  expect(res.body.code).toBe(0);
  return res.body.data.id as number;
}

async function share(token: string, fields: Record<string, unknown>) {
  const res = await action('create_share_link', token, fields);
  expect(res.body).toMatchObject({ code: 0, msg: '分享链接已创建' });
  return res.body.data as { id: number; url: string; view_count: number; state: string };
}

/** A browser: keeps the cookies the share page sets, as a real one does. */
const browser = () => request.agent(svc.app).set('User-Agent', BROWSER);

describe('creating, listing and revoking share links', () => {
  test('when the owner creates a link with a password, expiry and view limit, then the envelope carries it and share_links lists it', async () => {
    const user = await createTestUser(svc.db);
    const categoryId = await album(user.token);
    const res = await action('create_share_link', user.token, { category_id: categoryId, password: 'album-pass-1', expires_in_hours: 48, max_views: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      code: 0,
      msg: '分享链接已创建',
      data: { category_id: categoryId, category_name: '旅行', has_password: true, max_views: 3, view_count: 0, state: 'active' },
    });
    expect(res.body.data.url).toMatch(/^http:\/\/img\.test\/s\/[A-Za-z0-9_-]{22}$/);
    expect(res.body.data.expire_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(JSON.stringify(res.body)).not.toContain('album-pass-1');
    const listed = await read('share_links', user.token, `&category_id=${categoryId}`);
    expect(listed.body).toEqual({ code: 0, msg: '成功', data: { list: [res.body.data] } });
    const stored = await svc.db('share_links').first('password_hash');
    expect(stored.password_hash).not.toContain('album-pass-1');
  });

  test("when the category is another user's, then 分类不存在 and no link is stored", async () => {
    const owner = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const categoryId = await album(owner.token);
    const res = await action('create_share_link', other.token, { category_id: categoryId });
    expect(res.body).toEqual({ code: 1, msg: '分类不存在' });
    expect(Number((await svc.db('share_links').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  test.each([
    [{ max_views: 0 }, '参数错误'],
    [{ expires_in_hours: 'soon' }, '参数错误'],
    [{ expires_in_hours: 8761 }, '参数错误'],
    [{ password: 'short' }, '密码长度须为 8 到 128 个字符'],
  ])('when create_share_link gets %j, then %s and nothing is stored', async (fields, msg) => {
    const user = await createTestUser(svc.db);
    const categoryId = await album(user.token);
    expect((await action('create_share_link', user.token, { category_id: categoryId, ...fields })).body).toEqual({ code: 1, msg });
    expect(Number((await svc.db('share_links').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  test('when a link is revoked, then its page says so with 410 and share_links shows it revoked', async () => {
    const user = await createTestUser(svc.db);
    const categoryId = await album(user.token);
    await upload(user.token, categoryId);
    const link = await share(user.token, { category_id: categoryId });
    expect((await browser().get(local(link.url))).status).toBe(200);
    const revoked = await action('revoke_share_link', user.token, { id: link.id });
    expect(revoked.body).toMatchObject({ code: 0, msg: '分享链接已撤销', data: { id: link.id, state: 'revoked' } });
    const page = await browser().get(local(link.url));
    expect(page.status).toBe(410);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('这个分享链接已被撤销。');
    expect(page.text).not.toContain('tiny.png');
  });

  test("when another user revokes the link, then 分享链接不存在 and the link still works", async () => {
    const owner = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const link = await share(owner.token, { category_id: await album(owner.token) });
    expect((await action('revoke_share_link', other.token, { id: link.id })).body).toEqual({ code: 1, msg: '分享链接不存在' });
    expect((await read('share_links', other.token)).body).toEqual({ code: 0, msg: '成功', data: { list: [] } });
    expect((await browser().get(local(link.url))).status).toBe(200);
  });

  test('when share_links is called without a token, then 请先登录', async () => {
    expect((await request(svc.app).get(`${API}?action=share_links`)).body).toEqual({ code: 1, msg: '请先登录' });
  });
});

describe('the share page', () => {
  test('when a viewer opens the link, then the album lists its stored images only, with signed thumbnails, and nothing of other albums or the bin', async () => {
    const user = await createTestUser(svc.db);
    const categoryId = await album(user.token);
    const shown = await upload(user.token, categoryId, 'tiny.png');
    const binned = await upload(user.token, categoryId, 'photo.webp');
    expect((await action('delete', user.token, { id: binned.id })).body.code).toBe(0);
    const elsewhere = await upload(user.token, await album(user.token, '私人'), 'alpha.png');
    const link = await share(user.token, { category_id: categoryId });

    const page = await browser().get(local(link.url));
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<h1>旅行</h1>');
    expect(page.text).toContain(`href="${shown.url}"`);
    expect(page.text).toContain(`src="${shown.thumb_url.replace(/&/g, '&#38;')}"`);
    for (const hidden of [binned, elsewhere]) {
      expect(page.text).not.toContain(hidden.url);
      expect(page.text).not.toContain(`id=${hidden.id}&`);
    }
    expect(page.text).not.toContain('delete.php');
    expect(page.text).not.toContain(user.name);
    // The thumbnail the page shows answers.
    expect((await request(svc.app).get(local(shown.thumb_url))).status).toBe(200);
  });

  test('when the link does not exist, then a 404 page, not an envelope', async () => {
    const page = await browser().get('/s/AAAAAAAAAAAAAAAAAAAAAA');
    expect([page.status, page.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    expect(page.text).toContain('这个分享链接不存在。');
  });

  test('when the link has expired, then 410 with the expired page', async () => {
    const user = await createTestUser(svc.db);
    const link = await share(user.token, { category_id: await album(user.token), expires_in_hours: 1 });
    expect((await browser().get(local(link.url))).status).toBe(200);
    offsetMs = HOUR + 1000;
    const page = await browser().get(local(link.url));
    expect(page.status).toBe(410);
    expect(page.text).toContain('这个分享链接已过期。');
    expect((await read('share_links', user.token)).body.data.list[0]).toMatchObject({ state: 'expired', view_count: 1 });
  });

  test('when preview bots and the same browser load the page again and again, then only new browsers use up views, and the last view is the last', async () => {
    const user = await createTestUser(svc.db);
    const categoryId = await album(user.token);
    const image = await upload(user.token, categoryId);
    const link = await share(user.token, { category_id: categoryId, max_views: 2 });

    const first = browser();
    for (let load = 0; load < 3; load += 1) expect((await first.get(local(link.url))).status).toBe(200);
    for (const userAgent of PREVIEW_BOTS) {
      const preview = await request(svc.app).get(local(link.url)).set('User-Agent', userAgent);
      expect(preview.status).toBe(200);
      expect(preview.text).toContain('<meta property="og:title" content="旅行">');
      expect(preview.text).toContain('<meta name="twitter:card" content="summary_large_image">');
      // A preview shows the cover only, never the album: a spoofed user agent reads nothing without a view.
      expect(preview.text).not.toContain(`href="${image.url}"`);
    }
    // A HEAD (a link checker) reads no page and takes no view.
    expect((await request(svc.app).head(local(link.url)).set('User-Agent', BROWSER)).status).toBe(200);
    expect((await read('share_links', user.token)).body.data.list[0]).toMatchObject({ view_count: 1, state: 'active' });

    const second = browser();
    expect((await second.get(local(link.url))).status).toBe(200);
    const third = await browser().get(local(link.url));
    expect(third.status).toBe(410);
    expect(third.text).toContain('这个分享链接的查看次数已用完。');
    // The browsers that took the two views can still reload it.
    expect((await first.get(local(link.url))).text).toContain(`href="${image.url}"`);
    expect((await second.get(local(link.url))).status).toBe(200);
    expect((await read('share_links', user.token)).body.data.list[0]).toMatchObject({ view_count: 2, state: 'used_up' });
  });

  test('when a forged viewer cookie is sent, then it counts as a new viewer', async () => {
    const user = await createTestUser(svc.db);
    const link = await share(user.token, { category_id: await album(user.token), max_views: 1 });
    const viewer = browser();
    const opened = await viewer.get(local(link.url));
    const cookie = String(opened.headers['set-cookie']);
    expect(cookie).toMatch(/share_viewer=s%3A\d+\.[^;]+; Max-Age=\d+; Path=\/s\/[A-Za-z0-9_-]+; Expires=.+; HttpOnly; SameSite=Lax/);
    const forged = await request(svc.app).get(local(link.url)).set('User-Agent', BROWSER).set('Cookie', `share_viewer=${encodeURIComponent(`s:${link.id}.forged`)}`);
    expect(forged.status).toBe(410);
  });

  test('when the password is wrong, then 401 with 密码错误 and no view; when right, then the album and one view', async () => {
    const user = await createTestUser(svc.db);
    const categoryId = await album(user.token);
    const image = await upload(user.token, categoryId);
    const link = await share(user.token, { category_id: categoryId, password: 'album-pass-1', max_views: 5 });
    const viewer = browser();

    const form = await viewer.get(local(link.url));
    expect(form.status).toBe(200);
    expect(form.text).toContain('<form method="post">');
    expect(form.text).not.toContain(image.url);

    const wrong = await viewer.post(local(link.url)).type('form').send({ password: 'not-the-one' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('密码错误');
    expect(wrong.text).not.toContain(image.url);
    expect((await read('share_links', user.token)).body.data.list[0]).toMatchObject({ view_count: 0 });

    const right = await viewer.post(local(link.url)).type('form').send({ password: 'album-pass-1' });
    expect([right.status, right.headers.location]).toEqual([303, local(link.url)]);
    const shown = await viewer.get(local(link.url));
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`href="${image.url}"`);
    expect((await viewer.get(local(link.url))).status).toBe(200);
    expect((await read('share_links', user.token)).body.data.list[0]).toMatchObject({ view_count: 1 });
  });

  test('when wrong passwords keep coming, then the link refuses further checks with 429, even the right password', async () => {
    const user = await createTestUser(svc.db);
    const link = await share(user.token, { category_id: await album(user.token), password: 'album-pass-1' });
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await browser().post(local(link.url)).type('form').send({ password: `wrong-${attempt}` })).status).toBe(401);
    const throttled = await browser().post(local(link.url)).type('form').send({ password: 'album-pass-1' });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(throttled.text).toContain('尝试过于频繁，请稍后再试');
    expect(String(throttled.headers['set-cookie'] ?? '')).not.toContain('share_unlocked');
  });
});

describe('public image pages', () => {
  test('when the owner turns an image page on, then /p/ answers with Open Graph and Twitter card tags; off, it is 404 again', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, await album(user.token));
    expect((await read('image_page', user.token, `&id=${image.id}`)).body).toEqual({ code: 0, msg: '成功', data: { id: image.id, public: false, album_public: false, page_url: null } });

    const on = await action('set_image_page', user.token, { id: image.id, public: 1 });
    expect(on.body).toMatchObject({ code: 0, msg: '图片公开页已开启', data: { id: image.id, public: true } });
    const pageUrl = on.body.data.page_url as string;
    expect(pageUrl).toMatch(new RegExp(`^http://img\\.test/p/${image.id}-[A-Za-z0-9_-]{22}$`));
    const page = await request(svc.app).get(local(pageUrl)).set('User-Agent', PREVIEW_BOTS[0]!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<meta property="og:title" content="tiny.png">');
    expect(page.text).toContain(`<meta property="og:image" content="${image.url}">`);
    expect(page.text).toContain('<meta property="og:type" content="article">');
    expect(page.text).toContain('<meta name="twitter:card" content="summary_large_image">');

    expect((await action('set_image_page', user.token, { id: image.id, public: 0 })).body).toEqual({ code: 0, msg: '图片公开页已关闭', data: { id: image.id, public: false, album_public: false, page_url: null } });
    const off = await request(svc.app).get(local(pageUrl));
    expect(off.status).toBe(404);
    expect(off.text).not.toContain(image.url);
  });

  test("when the page is off by default, or the key is forged, or the image is another user's, then nothing is shown", async () => {
    const owner = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const image = await upload(owner.token, await album(owner.token));
    expect((await action('set_image_page', other.token, { id: image.id, public: 1 })).body).toEqual({ code: 1, msg: '图片不存在' });
    expect((await read('image_page', other.token, `&id=${image.id}`)).body).toEqual({ code: 1, msg: '图片不存在' });
    expect((await action('set_image_page', owner.token, { id: image.id })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await request(svc.app).get(`/p/${image.id}-AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
    const on = await action('set_image_page', owner.token, { id: image.id, public: true });
    expect((await request(svc.app).get(`/p/${image.id}-AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
    // Binned, the page is gone too.
    expect((await action('delete', owner.token, { id: image.id })).body.code).toBe(0);
    expect((await request(svc.app).get(local(on.body.data.page_url))).status).toBe(404);
  });
});

describe('public image pages of a whole album', () => {
  test('when the owner turns the album pages on, then every stored image of it (moved in later too) has its page; off again, only images opted in one by one keep theirs', async () => {
    const user = await createTestUser(svc.db);
    const albumId = await album(user.token);
    const elsewhereId = await album(user.token, '工作');
    const [first, second] = [await upload(user.token, albumId), await upload(user.token, albumId, 'alpha.png')];
    const outside = await upload(user.token, elsewhereId);
    expect((await action('set_image_page', user.token, { id: second.id, public: 1 })).body.code).toBe(0);

    const on = await action('set_album_pages', user.token, { category_id: albumId, public: 1 });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ code: 0, msg: '相册图片公开页已开启', data: { category_id: albumId, pages_public: true } });
    const firstPage = await read('image_page', user.token, `&id=${first.id}`);
    expect(firstPage.body).toEqual({ code: 0, msg: '成功', data: { id: first.id, public: false, album_public: true, page_url: expect.stringMatching(new RegExp(`^http://img\\.test/p/${first.id}-[A-Za-z0-9_-]{22}$`)) } });
    const firstUrl = local(firstPage.body.data.page_url as string);
    const secondUrl = local((await read('image_page', user.token, `&id=${second.id}`)).body.data.page_url as string);
    expect((await request(svc.app).get(firstUrl)).status).toBe(200);
    expect((await request(svc.app).get(secondUrl)).status).toBe(200);
    expect((await read('image_page', user.token, `&id=${outside.id}`)).body.data).toEqual({ id: outside.id, public: false, album_public: false, page_url: null });
    const categories = (await read('categories', user.token)).body.data.list as Array<{ id: number; pages_public: boolean }>;
    expect(categories.map((c) => [c.id, c.pages_public])).toEqual([[categories[0]!.id, false], [albumId, true], [elsewhereId, false]]);

    // An image moved into the album gets its page; the album's time of opt-in stays on a second "on".
    expect((await action('move', user.token, { ids: String(outside.id), category_id: albumId })).body.code).toBe(0);
    const movedUrl = (await read('image_page', user.token, `&id=${outside.id}`)).body.data.page_url as string;
    expect((await request(svc.app).get(local(movedUrl))).status).toBe(200);
    const since = (await svc.db('categories').where({ id: albumId }).first('pages_public_at')).pages_public_at as Date;
    expect((await action('set_album_pages', user.token, { category_id: albumId, public: 'true' })).body.msg).toBe('相册图片公开页已开启');
    expect(((await svc.db('categories').where({ id: albumId }).first('pages_public_at')).pages_public_at as Date).getTime()).toBe(since.getTime());

    const off = await action('set_album_pages', user.token, { category_id: albumId, public: 0 });
    expect(off.body).toEqual({ code: 0, msg: '相册图片公开页已关闭', data: { category_id: albumId, pages_public: false } });
    expect((await request(svc.app).get(firstUrl)).status).toBe(404);
    expect((await request(svc.app).get(local(movedUrl))).status).toBe(404);
    expect((await request(svc.app).get(secondUrl)).status).toBe(200);
    expect((await read('image_page', user.token, `&id=${first.id}`)).body.data).toEqual({ id: first.id, public: false, album_public: false, page_url: null });
    expect((await read('image_page', user.token, `&id=${second.id}`)).body.data).toMatchObject({ id: second.id, public: true, album_public: false });
    expect(await svc.db('categories').where({ id: albumId }).first('pages_public_at')).toEqual({ pages_public_at: null });
  });

  test("when the category is another user's, missing, or public is absent, then 分类不存在 or 参数错误 and nothing changes", async () => {
    const owner = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const albumId = await album(owner.token);
    const image = await upload(owner.token, albumId);
    expect((await action('set_album_pages', other.token, { category_id: albumId, public: 1 })).body).toEqual({ code: 1, msg: '分类不存在' });
    expect((await action('set_album_pages', owner.token, { category_id: 999_999, public: 1 })).body).toEqual({ code: 1, msg: '分类不存在' });
    expect((await action('set_album_pages', owner.token, { category_id: albumId })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await action('set_album_pages', owner.token, { public: 1 })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await request(svc.app).post(`${API}?action=set_album_pages`).send({ category_id: albumId, public: 1 })).body).toEqual({ code: 1, msg: '请先登录' });
    expect(await svc.db('categories').where({ id: albumId }).first('pages_public_at')).toEqual({ pages_public_at: null });
    expect((await read('image_page', owner.token, `&id=${image.id}`)).body.data.page_url).toBeNull();
  });

  test('when an image of a public album is binned, then its page is gone', async () => {
    const user = await createTestUser(svc.db);
    const albumId = await album(user.token);
    const image = await upload(user.token, albumId);
    await action('set_album_pages', user.token, { category_id: albumId, public: 1 });
    const url = local((await read('image_page', user.token, `&id=${image.id}`)).body.data.page_url as string);
    expect((await request(svc.app).get(url)).status).toBe(200);
    expect((await action('delete', user.token, { id: image.id })).body.code).toBe(0);
    expect((await request(svc.app).get(url)).status).toBe(404);
  });
});

describe('share page paging', () => {
  /** The album's one uploaded image, copied to `n` images in all (rows only: the page reads rows). */
  async function albumOf(n: number) {
    const user = await createTestUser(svc.db);
    const albumId = await album(user.token);
    await upload(user.token, albumId);
    const { id: _id, ...row } = await svc.db('images').where({ user_id: user.id }).first();
    const copies = Array.from({ length: n - 1 }, (_, i) => ({ ...row, content_hash: null, storage_key: `${row.storage_key}-${i + 2}`, original_name: `photo-${String(i + 2).padStart(3, '0')}.png` }));
    for (let i = 0; i < copies.length; i += 100) await svc.db('images').insert(copies.slice(i, i + 100));
    return { user, albumId };
  }

  const names = (html: string) => [...html.matchAll(/<span><bdi>([^<]+)<\/bdi><\/span>/g)].map((match) => match[1]);

  test('when an album of 230 images is opened, then 100 a page, newest first, with server-rendered links to the others, and paging takes no further views', async () => {
    const { user, albumId } = await albumOf(230);
    const link = await share(user.token, { category_id: albumId, max_views: 1 });
    const viewer = browser();
    const path = local(link.url);
    const first = await viewer.get(path);
    expect(first.status).toBe(200);
    expect(first.text).toContain('<p>共 230 张图片</p>');
    expect(names(first.text)).toHaveLength(100);
    expect(names(first.text)[0]).toBe('photo-230.png');
    expect(names(first.text)[99]).toBe('photo-131.png');
    expect(first.text).toContain('<span aria-current="page">第 1 / 3 页</span>');
    expect(first.text).toContain(`<a href="${path}?page=2" rel="next">下一页 →</a>`);
    expect(first.text).not.toContain('rel="prev"');

    const second = await viewer.get(`${path}?page=2`);
    expect(second.status).toBe(200);
    expect(names(second.text)[0]).toBe('photo-130.png');
    expect(names(second.text)).toHaveLength(100);
    expect(second.text).toContain(`<a href="${path}" rel="prev">← 上一页</a>`);
    expect(second.text).toContain(`<a href="${path}?page=3" rel="next">下一页 →</a>`);

    const third = await viewer.get(`${path}?page=3`);
    expect(names(third.text)).toEqual([...Array.from({ length: 29 }, (_, i) => `photo-${String(30 - i).padStart(3, '0')}.png`), 'tiny.png']);
    expect(third.text).toContain('<span aria-current="page">第 3 / 3 页</span>');
    expect(third.text).not.toContain('rel="next"');

    // One view in all (the limit was 1): the same browser pages on.
    expect((await read('share_links', user.token)).body.data.list[0]).toMatchObject({ view_count: 1, state: 'used_up' });

    const beyond = await viewer.get(`${path}?page=9`);
    expect(beyond.status).toBe(200);
    expect(beyond.text).toContain('<span aria-current="page">第 3 / 3 页</span>');
    expect(names(beyond.text)).toEqual(names(third.text));
    for (const bad of ['0', '-1', 'abc', '1.5', '1000001']) expect((await viewer.get(`${path}?page=${bad}`)).status).toBe(404);
  });

  test('when an album has at most 100 images, then one page and no paging links', async () => {
    const { user, albumId } = await albumOf(100);
    const link = await share(user.token, { category_id: albumId });
    const page = await browser().get(local(link.url));
    expect(page.text).toContain('<p>共 100 张图片</p>');
    expect(names(page.text)).toHaveLength(100);
    expect(page.text).not.toContain('<nav class="pages"');
  });
});
