import request from 'supertest';
import { loadConfig } from '../src/config';
import { TEST_KEYS, createTestUser, fixture, openTestService, useTestService } from './support/harness';

// PUBLIC_HOSTS: links follow the request's host when the operator allowed it, and only then. The
// supertest client is on loopback, a trusted proxy by default, as nginx is to the service.

const API = '/api/image.php';
const LAN = '192.168.1.5:8080';

const svc = useTestService({ PUBLIC_HOSTS: `${LAN}, Photos.LAN` });

const upload = (token: string, host?: string) => {
  const req = request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token);
  if (host) req.set('Host', host);
  return req.attach('file', fixture('tiny.png'));
};

describe('links on an allowed host', () => {
  test('when the app is opened from a phone on the LAN, then every link of the upload, the list and the bin is on that host, and the images answer there', async () => {
    const user = await createTestUser(svc.db);
    const res = await upload(user.token, LAN);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0, msg: '上传成功' });
    const image = res.body.data as { id: number; url: string; thumb_url: string; links: Record<string, string> };
    expect(image.url).toMatch(/^http:\/\/192\.168\.1\.5:8080\/i\/\d{4}\/\d\d\/\d\d\/[a-f0-9]{32}\.png$/);
    expect(image.thumb_url).toMatch(/^http:\/\/192\.168\.1\.5:8080\/api\/thumb\.php\?id=\d+&sig=/);
    expect(image.links.delete).toMatch(/^http:\/\/192\.168\.1\.5:8080\/api\/delete\.php\?id=\d+&sig=/);
    expect(image.links.markdown).toBe(`![tiny.png](${image.url})`);
    expect(JSON.stringify(res.body)).not.toContain('img.test');

    // The same image from the configured host: the configured base; the signatures are the same.
    const listed = await request(svc.app).get(`${API}?action=list`).set('X-API-Token', user.token);
    expect(listed.body.data.list[0].url).toBe(image.url.replace(`http://${LAN}`, 'http://img.test'));
    expect(listed.body.data.list[0].thumb_url).toBe(image.thumb_url.replace(`http://${LAN}`, 'http://img.test'));
    const thumb = await request(svc.app).get(image.thumb_url.replace(`http://${LAN}`, '')).set('Host', LAN);
    expect(thumb.status).toBe(200);
    expect(thumb.headers['content-type']).toMatch(/^image\//);

    // A name without its port is allowed on any port, in any case; https from the proxy's X-Forwarded-Proto.
    const viaName = await request(svc.app).get(`${API}?action=list`).set('X-API-Token', user.token).set('Host', 'PHOTOS.lan:8443').set('X-Forwarded-Proto', 'https');
    expect(viaName.body.data.list[0].url).toBe(image.url.replace(`http://${LAN}`, 'https://photos.lan:8443'));

    expect((await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).set('Host', LAN).send({ id: image.id })).body.code).toBe(0);
    const bin = await request(svc.app).get(`${API}?action=trash`).set('X-API-Token', user.token).set('Host', LAN);
    expect(bin.body.data.list[0].thumb_url).toMatch(/^http:\/\/192\.168\.1\.5:8080\/api\/thumb\.php\?id=\d+&bin=1&sig=/);
  });

  test('when a share link and a public page are made and opened on the LAN host, then their links and pages are on it', async () => {
    const user = await createTestUser(svc.db);
    const image = (await upload(user.token, LAN)).body.data as { id: number; url: string };
    const categoryId = (await request(svc.app).get(`${API}?action=categories`).set('X-API-Token', user.token)).body.data.list[0].id as number;
    const link = await request(svc.app).post(`${API}?action=create_share_link`).set('X-API-Token', user.token).set('Host', LAN).send({ category_id: categoryId });
    expect(link.body).toMatchObject({ code: 0, msg: '分享链接已创建' });
    expect(link.body.data.url).toMatch(/^http:\/\/192\.168\.1\.5:8080\/s\/[A-Za-z0-9_-]{22}$/);
    const page = await request(svc.app).get(new URL(link.body.data.url as string).pathname).set('Host', LAN).set('User-Agent', 'Mozilla/5.0 Chrome/131.0');
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a href="${image.url}">`);
    expect(page.text).toContain(`<img src="http://${LAN}/api/thumb.php?id=${image.id}&#38;sig=`);
    expect(page.text).not.toContain('img.test');

    const on = await request(svc.app).post(`${API}?action=set_image_page`).set('X-API-Token', user.token).set('Host', LAN).send({ id: image.id, public: 1 });
    expect(on.body.data.page_url).toMatch(new RegExp(`^http://192\\.168\\.1\\.5:8080/p/${image.id}-`));
    const imagePage = await request(svc.app).get(new URL(on.body.data.page_url as string).pathname).set('Host', LAN);
    expect(imagePage.status).toBe(200);
    expect(imagePage.text).toContain(`<meta property="og:image" content="${image.url}">`);
    expect(imagePage.text).toContain(`<meta property="og:url" content="${on.body.data.page_url}">`);
  });

  test('when a Lsky client uploads through the LAN host, then its links in its own envelope are on that host', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post('/compat/lsky/api/v1/upload').set('Host', LAN).set('Authorization', `Bearer ${user.token}`).attach('file', fixture('tiny.png'));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    expect(res.body.data.links.url).toMatch(/^http:\/\/192\.168\.1\.5:8080\/i\//);
    expect(JSON.stringify(res.body)).not.toContain('img.test');
  });
});

describe('host header injection', () => {
  test.each([
    ['an unknown Host', { Host: 'evil.example' }],
    ['an unknown Host on an allowed port', { Host: 'evil.example:8080' }],
    ['an allowed name on a port it was not allowed on', { Host: '192.168.1.5:9999' }],
    ['an unknown X-Forwarded-Host beside an allowed Host', { Host: LAN, 'X-Forwarded-Host': 'evil.example' }],
    ['a Host with a user part', { Host: `user@${LAN}` }],
  ])('when the request comes with %s, then every link stays on PUBLIC_BASE_URL', async (_label, headers) => {
    const user = await createTestUser(svc.db);
    const req = request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    const res = await req.attach('file', fixture('tiny.png'));
    expect(res.body).toMatchObject({ code: 0, msg: '上传成功' });
    expect(res.body.data.url).toMatch(/^http:\/\/img\.test\/i\//);
    expect(res.body.data.thumb_url).toMatch(/^http:\/\/img\.test\/api\/thumb\.php/);
    expect(res.body.data.links.delete).toMatch(/^http:\/\/img\.test\/api\/delete\.php/);
    expect(JSON.stringify(res.body)).not.toContain('evil');
    expect(JSON.stringify(res.body)).not.toContain('9999');
  });

  test('when X-Forwarded-Host comes from a peer that is not a trusted proxy, then it is ignored and the Host decides', async () => {
    const untrusted = await openTestService({ PUBLIC_HOSTS: LAN, TRUSTED_PROXIES: '10.9.9.9' });
    try {
      const user = await createTestUser(untrusted.db);
      const forwarded = await request(untrusted.app).post(`${API}?action=upload`).set('X-API-Token', user.token).set('Host', 'img.test').set('X-Forwarded-Host', LAN).attach('file', fixture('tiny.png'));
      expect(forwarded.body.data.url).toMatch(/^http:\/\/img\.test\/i\//);
      const direct = await request(untrusted.app).get(`${API}?action=list`).set('X-API-Token', user.token).set('Host', LAN).set('X-Forwarded-Proto', 'https');
      expect(direct.body.data.list[0].url).toMatch(/^http:\/\/192\.168\.1\.5:8080\/i\//);
    } finally {
      await untrusted.close();
    }
  });

  test('when PUBLIC_HOSTS is not set, then even the LAN host gets the configured base', async () => {
    const plain = await openTestService();
    try {
      const user = await createTestUser(plain.db);
      const res = await request(plain.app).post(`${API}?action=upload`).set('X-API-Token', user.token).set('Host', LAN).attach('file', fixture('tiny.png'));
      expect(res.body.data.url).toMatch(/^http:\/\/img\.test\/i\//);
    } finally {
      await plain.close();
    }
  });
});

describe('the setting', () => {
  test.each(['http://192.168.1.5:8080', '*.lan', '192.168.1.5:8080/app', 'user@host', 'host:99999', 'bad host'])('when PUBLIC_HOSTS holds %s, then the service refuses to start, naming PUBLIC_HOSTS', (entry) => {
    expect(() => loadConfig({ ...TEST_KEYS, PUBLIC_HOSTS: `photos.lan,${entry}` })).toThrow(/PUBLIC_HOSTS/);
  });

  test('when PUBLIC_HOSTS lists names, addresses and ports, then they are read lower-cased, a port-less name for any port', () => {
    expect(loadConfig({ ...TEST_KEYS, PUBLIC_HOSTS: ' Photos.LAN , 192.168.1.5:8080,[::1]:8080,' }).publicHosts).toEqual([
      { hostname: 'photos.lan', port: null },
      { hostname: '192.168.1.5', port: '8080' },
      { hostname: '[::1]', port: '8080' },
    ]);
    expect(loadConfig({ ...TEST_KEYS }).publicHosts).toEqual([]);
  });
});
