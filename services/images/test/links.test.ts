import request from 'supertest';
import { createLinkSigner } from '../src/images/link-signer';
import { createTestUser, distinctBytes, storedKeys, fixture, imageRows, useTestService } from './support/harness';

// The `links` extension of upload and list answers, and the deletion link behind it.

const API = '/api/image.php';
const svc = useTestService();

const local = (absoluteUrl: string) => absoluteUrl.replace('http://img.test', '');

async function uploadAs(token: string, filename: string) {
  const res = await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token).attach('file', distinctBytes('tiny.png'), filename); // each a picture of its own (deduplication)
  expect(res.body.code).toBe(0);
  return res.body.data as { id: number; url: string; thumb_url: string; links: Record<string, string> };
}

test('when an image is uploaded, then its links give the URL, thumbnail, Markdown, HTML, BBCode and a deletion page, and list gives the same when asked', async () => {
  const user = await createTestUser(svc.db);
  const image = await uploadAs(user.token, 'cat.png');
  expect(image.links).toEqual({
    url: image.url,
    thumbnail: image.thumb_url,
    markdown: `![cat.png](${image.url})`,
    html: `<img src="${image.url}" alt="cat.png">`,
    bbcode: `[img]${image.url}[/img]`,
    delete: expect.stringMatching(new RegExp(`^http://img\\.test/api/delete\\.php\\?id=${image.id}&sig=[\\w-]{32}$`)),
  });
  const listed = await request(svc.app).get(`${API}?action=list&links=1`).set('X-API-Token', user.token);
  expect(listed.body.data.list[0].links).toEqual(image.links);
  const plain = await request(svc.app).get(`${API}?action=list`).set('X-API-Token', user.token);
  expect(plain.body.data.list[0]).not.toHaveProperty('links');
});

test('when a file name holds Markdown, HTML or a right-to-left override, then each link form escapes it for its own syntax', async () => {
  const user = await createTestUser(svc.db);
  // (A "/" or "\\" would cut the name to its last segment: names are never paths.)
  const image = await uploadAs(user.token, 'a]b[c <b>"x"<b> &\u202Egnp.png');
  expect(image.links.markdown).toBe(`![a\\]b\\[c &#60;b&#62;&#34;x&#34;&#60;b&#62; &#38;\u202Egnp.png](${image.url})`);
  expect(image.links.html).toBe(`<img src="${image.url}" alt="a]b[c &#60;b&#62;&#34;x&#34;&#60;b&#62; &#38;\u202Egnp.png">`);
  expect(image.links.bbcode).toBe(`[img]${image.url}[/img]`);
});

test('when a file name is an HTML tag, then the Markdown snippet carries it escaped, never as inline HTML a renderer would pass through', async () => {
  const user = await createTestUser(svc.db);
  const image = await uploadAs(user.token, '<img src=x onerror=alert(1)>.png');
  expect(image.links.markdown).toBe(`![&#60;img src=x onerror=alert(1)&#62;.png](${image.url})`);
});

test('when the deletion link is opened (a GET, as a link preview would), then it only asks, escaping the name; its POST moves the image to the bin', async () => {
  const user = await createTestUser(svc.db);
  const image = await uploadAs(user.token, '<img src=x onerror=alert(1)>.png');
  const page = await request(svc.app).get(local(image.links.delete!));
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
  // No script, no images, only its own style block (by hash).
  expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]{44}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
  expect(page.headers['cache-control']).toBe('no-store');
  expect(page.text).toContain('&#60;img src=x onerror=alert(1)&#62;.png');
  expect(page.text).not.toContain('<img');
  expect(page.text).toContain('<form method="post">');
  expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'stored' });

  const deleted = await request(svc.app).post(local(image.links.delete!));
  expect(deleted.status).toBe(200);
  expect(deleted.text).toContain('图片已移入回收站');
  expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'binned' });
  expect(await storedKeys(svc, 'public')).toEqual([]);
  // The owner can restore it; the link itself is spent while the image is in the bin.
  expect((await request(svc.app).post(local(image.links.delete!))).status).toBe(404);
  expect((await request(svc.app).get(local(image.links.delete!))).status).toBe(404);
  expect((await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: image.id })).body.code).toBe(0);
});

test.each([
  ['en-US,en;q=0.9', 'en'],
  ['en-GB,zh-CN;q=0.5', 'en'],
  ['zh-CN,zh;q=0.9,en;q=0.8', 'zh'],
  ['fr-FR,fr;q=0.9', 'zh'],
  ['', 'zh'],
])('when the deletion link is opened with Accept-Language %j, then the page is in %s, asking, deleted and spent alike', async (acceptLanguage, language) => {
  const user = await createTestUser(svc.db);
  const image = await uploadAs(user.token, 'holiday.png');
  const open = (method: 'get' | 'post') => {
    const req = request(svc.app)[method](local(image.links.delete!));
    return acceptLanguage === '' ? req : req.set('Accept-Language', acceptLanguage);
  };
  const english = language === 'en';
  const asking = await open('get');
  expect(asking.status).toBe(200);
  expect(asking.headers.vary).toBe('Accept-Language');
  expect(asking.text).toContain(english ? '<html lang="en">' : '<html lang="zh-CN">');
  expect(asking.text).toContain(english ? '<title>Delete image</title>' : '<title>删除图片</title>');
  expect(asking.text).toContain(english ? 'Delete the image <strong><bdi>holiday.png</bdi></strong>?' : '确定要删除图片 <strong><bdi>holiday.png</bdi></strong> 吗？');
  expect(asking.text).toContain(english ? '<button type="submit">Delete</button>' : '<button type="submit">删除</button>');
  expect(asking.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]{44}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
  const deleted = await open('post');
  expect(deleted.status).toBe(200);
  expect(deleted.text).toContain(english ? 'The image is in the recycle bin; its link no longer works.' : '图片已移入回收站，链接已失效。');
  expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'binned' });
  const spent = await open('get');
  expect(spent.status).toBe(404);
  expect(spent.text).toContain(english ? '<title>Link not valid</title>' : '<title>链接无效</title>');
});

test('when a deletion link is forged, reused for another id, or a thumbnail signature is used for it, then 404 and nothing is deleted', async () => {
  const user = await createTestUser(svc.db);
  const first = await uploadAs(user.token, 'a.png');
  const second = await uploadAs(user.token, 'b.png');
  const sig = new URL(first.links.delete!).searchParams.get('sig');
  const thumbSig = new URL(first.thumb_url).searchParams.get('sig');
  for (const path of [
    `/api/delete.php?id=${second.id}&sig=${sig}`,
    `/api/delete.php?id=${first.id}&sig=${thumbSig}`,
    `/api/delete.php?id=${first.id}&sig=${'A'.repeat(32)}`,
    `/api/delete.php?id=${first.id}`,
    `/api/delete.php?id=abc&sig=${sig}`,
  ]) {
    const res = await request(svc.app).post(path);
    expect(res.status).toBe(404);
    expect(res.text).toContain('这个删除链接无效');
  }
  expect((await imageRows(svc.db)).map((row) => row.status)).toEqual(['stored', 'stored']);
});

describe('a deletion link after the owner restores the image', () => {
  const listedLinks = async (token: string) =>
    (await request(svc.app).get(`${API}?action=list&links=1`).set('X-API-Token', token)).body.data.list[0].links as Record<string, string>;

  /** The answers of a link that cannot delete: the 404 page for GET and POST, and the image still stored in public/. */
  async function expectDeadLink(link: string) {
    for (const method of ['get', 'post'] as const) {
      const res = await request(svc.app)[method](local(link));
      expect({ method, status: res.status, gone: res.text.includes('这个删除链接无效') }).toEqual({ method, status: 404, gone: true });
    }
    expect((await imageRows(svc.db)).map((row) => row.status)).toEqual(['stored']);
    expect(await storedKeys(svc, 'public')).toHaveLength(1);
  }

  test.each([
    ['id', (id: number) => ({ id })],
    ['ids (bulk)', (id: number) => ({ ids: [id] })],
  ])('when a link binned the image and the owner restores it (by %s), then that link is dead for GET and POST, and the new link in list and upload answers works', async (_how, body) => {
    const user = await createTestUser(svc.db);
    const upload = () =>
      request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).set('Idempotency-Key', 'restore-me').attach('file', fixture('tiny.png'), 'cat.png');
    const image = (await upload()).body.data as { id: number; links: Record<string, string> };
    const oldLink = image.links.delete!;
    expect((await request(svc.app).post(local(oldLink))).text).toContain('图片已移入回收站');
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'binned' });

    const restored = await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send(body(image.id));
    expect(restored.body.code).toBe(0);
    await expectDeadLink(oldLink);

    const newLink = (await listedLinks(user.token)).delete!;
    expect(newLink).not.toBe(oldLink);
    // The upload answer, as a retry with the same Idempotency-Key gets it now, carries the new link too.
    expect((await upload()).body.data.links.delete).toBe(newLink);
    expect((await request(svc.app).get(local(newLink))).status).toBe(200);
    expect((await request(svc.app).post(local(newLink))).text).toContain('图片已移入回收站');
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'binned' });
    expect(await storedKeys(svc, 'public')).toEqual([]);
  });

  test('when a link is signed without the image\'s nonce (as links were before it existed), then it does not work for a new image', async () => {
    const user = await createTestUser(svc.db);
    const image = await uploadAs(user.token, 'cat.png');
    const withoutNonce = `http://img.test/api/delete.php?id=${image.id}&sig=${createLinkSigner(svc.config.thumbSigningSecret).deletion.sign(image.id, null)}`;
    await expectDeadLink(withoutNonce);
  });

  test('when an image is from before deletion nonces were kept, then its link (signed without one) works until the owner restores the image', async () => {
    const user = await createTestUser(svc.db);
    const image = await uploadAs(user.token, 'cat.png');
    await svc.db('images').where({ id: image.id }).update({ deletion_nonce: null });
    const oldLink = `http://img.test/api/delete.php?id=${image.id}&sig=${createLinkSigner(svc.config.thumbSigningSecret).deletion.sign(image.id, null)}`;
    expect((await listedLinks(user.token)).delete).toBe(oldLink);
    expect((await request(svc.app).get(local(oldLink))).status).toBe(200);
    expect((await request(svc.app).post(local(oldLink))).text).toContain('图片已移入回收站');

    expect((await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: image.id })).body.code).toBe(0);
    expect((await imageRows(svc.db))[0]!.deletion_nonce).toEqual(expect.any(String));
    await expectDeadLink(oldLink);
    expect((await request(svc.app).post(local((await listedLinks(user.token)).delete!))).text).toContain('图片已移入回收站');
  });
});
