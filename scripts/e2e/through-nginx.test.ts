/**
 * The platform as operators run it: the built services (two replicas each) on
 * loopback, behind a real nginx rendered from proxy/nginx.conf.template, on real
 * Postgres and Redis. Every operation is driven through nginx.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, watch } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from 'pg';
import sharp from 'sharp';
import { realServices } from './real-services';
import { CHROMIUM_PATH, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { watchForProblems } from '../../services/images/web/test/support/browser';
import { buildServices, e2eStorage, runAdmin, startPlatform, stopProcess, whenFileShows, whenReplicaWrites, type Platform, type Replica } from './platform';
import { expectWebAppAnswers } from './web-app-answers';

const real = realServices();
const describeReal = real ? describe : describe.skip;
/** Tests of images kept in a bucket: the suite runs with TEST_STORAGE=s3 (CI's third run). */
const testOnS3 = e2eStorage() === 's3' ? test : test.skip;

const NGINX_BODY_LIMIT = '2m';

function printedSecret(output: string, pattern: RegExp): string {
  const match = pattern.exec(output);
  if (!match) throw new Error(`admin CLI output without the expected secret:\n${output}`);
  return match[1]!;
}

/** One line of nginx's access log (log_format platform). */
interface AccessLogEntry {
  request_id: string;
  method: string;
  path: string;
  status: number;
  upstream: string;
  upstream_status: string;
  upstream_connect_time: string;
  upstream_response_time: string;
}

/**
 * The pause between probes of nginx's rotation. A failed replica is out of rotation for
 * `fail_timeout` (a time, by design: nginx gives no signal when it takes one back), so the two
 * tests about it send a request, look at the answer, and try again a little later. Nothing else in
 * this suite waits on time: the rest waits on log lines, files and process output.
 */
const pace = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let photosMade = 0;

/** A JPEG of its own pattern: no two calls give the same file (the service deduplicates a user's repeat uploads). */
async function photo(width: number, height: number): Promise<Buffer> {
  const channels = 3;
  const pixels = Buffer.alloc(width * height * channels);
  photosMade += 1;
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7 + photosMade * 13) % 251;
  return sharp(pixels, { raw: { width, height, channels } }).jpeg({ quality: 90 }).toBuffer();
}

describeReal(`platform through nginx (two replicas of each service, images on ${e2eStorage()})`, () => {
  let platform: Platform;
  let token: string;
  let apiKey: string;

  const imageApi = (query: string) => `${platform.baseUrl}/api/image.php?${query}`;
  const toolsApi = (query: string) => `${platform.baseUrl}/api/index.php?${query}`;
  const v1 = (pathAndQuery: string) => `${platform.baseUrl}/api/v1/${pathAndQuery}`;
  const withKey = { headers: { 'X-API-Key': '' } };

  async function upload(file: Buffer, name: string): Promise<{ status: number; body: any; requestId: string }> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)], { type: 'image/jpeg' }), name);
    const res = await fetch(imageApi('action=upload'), { method: 'POST', body: form, headers: { 'X-API-Token': token } });
    return { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id')! };
  }

  async function listTotal(): Promise<number> {
    const res = await fetch(imageApi('action=list'), { headers: { 'X-API-Token': token } });
    const body = (await res.json()) as { data: { total: number } };
    return body.data.total;
  }

  async function usedBytes(): Promise<number> {
    const res = await fetch(imageApi('action=profile'), { headers: { 'X-API-Token': token } });
    const body = (await res.json()) as { data: { used_bytes: number } };
    return body.data.used_bytes;
  }

  const address = (replica: Replica) => `127.0.0.1:${replica.port}`;

  /**
   * The access log's lines for these request ids (each answer's X-Request-Id), in that order, once
   * nginx has written them all. nginx writes a line after the answer went out, and for a refused
   * body only after it has drained the rest of it: a line can come late, and after later ones.
   */
  async function accessLogFor(requestIds: string[]): Promise<AccessLogEntry[]> {
    const entries = () => new Map(platform.accessLog().map((line) => JSON.parse(line) as AccessLogEntry).map((entry) => [entry.request_id, entry]));
    return whenFileShows(
      platform.accessLogFile,
      () => {
        const byId = entries();
        return requestIds.every((id) => byId.has(id)) && requestIds.map((id) => byId.get(id)!);
      },
      () => `nginx's access log lines for ${requestIds.filter((id) => !entries().has(id)).join(', ')}`,
      10000,
    );
  }

  const requestIdOf = (res: Response) => res.headers.get('x-request-id')!;

  /**
   * Sends GETs through nginx until each of `replicas` has answered one alone (no failed attempt
   * before it): nginx has them all in rotation. A replica that failed lately stays out for up to 2 s.
   */
  async function untilNginxUses(replicas: Replica[], url: string, init: RequestInit): Promise<void> {
    const start = platform.accessLog().length;
    const deadline = Date.now() + 10000;
    for (;;) {
      const res = await fetch(url, init);
      await res.arrayBuffer();
      const served = new Set(
        platform
          .accessLog()
          .slice(start)
          .map((line) => JSON.parse(line) as AccessLogEntry)
          .filter((entry) => entry.upstream_status === '200')
          .map((entry) => entry.upstream),
      );
      if (replicas.every((replica) => served.has(address(replica)))) return;
      if (Date.now() > deadline) throw new Error(`nginx did not use ${replicas.map((r) => r.name).join(', ')} in 10 s`);
      await pace(100);
    }
  }

  beforeAll(async () => {
    buildServices();
    // PUBLIC_HOSTS: the links follow a request that reached nginx as localhost (any port); 127.0.0.1 is PUBLIC_BASE_URL's.
    platform = await startPlatform(real!, { replicas: 2, clientMaxBodySize: NGINX_BODY_LIMIT, env: { images: { PUBLIC_HOSTS: 'localhost' } } });
    token = printedSecret(runAdmin('images', platform.env.images, ['create-user', 'e2e']), /^token \(store it now; the user also sees it in the account area\): (\S+)$/m);
    runAdmin('tools', platform.env.tools, ['import', 'services/tools/data/sample-tools.json']);
    apiKey = printedSecret(runAdmin('tools', platform.env.tools, ['key:create', '--name', 'e2e']), /^key: (\S+)$/m);
    withKey.headers['X-API-Key'] = apiKey;
    // Each replica searches the imported catalog: its first search after the import starts a rebuild and
    // is answered from the index before it (stale-while-rebuild), so ask each directly until it finds.
    for (const replica of platform.tools) {
      const deadline = Date.now() + 30000;
      for (;;) {
        const res = await fetch(`http://${address(replica)}/api/index.php?action=search&q=jietu`, withKey);
        const body = (await res.json()) as { data?: { total?: number } };
        if ((body.data?.total ?? 0) > 0) break;
        if (Date.now() > deadline) throw new Error(`${replica.name} did not search the imported catalog in 30 s: ${JSON.stringify(body)}`);
        await pace(100);
      }
    }
  }, 180000);

  afterAll(async () => {
    await platform?.stop();
  });

  test('when /app/ is asked, then nginx serves the web app: the page for every app path with no-cache, hashed assets immutable for a year, a missing asset 404, the CSP everywhere', async () => {
    await expectWebAppAnswers(platform.baseUrl);
  });

  // CI (REQUIRE_REAL_SERVICES=1) installs Chromium; elsewhere the browser part is skipped without it.
  (existsSync(CHROMIUM_PATH) || process.env.REQUIRE_REAL_SERVICES === '1' ? test : test.skip)(
    'when the web app is used in Chromium through nginx, then a user made by the CLI signs in, uploads a photo and sees its thumbnail, and nothing is refused by nginx\'s CSP',
    async () => {
      runAdmin('images', platform.env.images, ['create-user', 'web-e2e', '--password-stdin'], 'web-e2e-password\n');
      const browser = await launchChromium({ args: ['--lang=zh-CN'] });
      try {
        const context = await browser.newContext({ locale: 'zh-CN' });
        const { problems } = watchForProblems(context);
        const page = await context.newPage();
        await page.goto(`${platform.baseUrl}/app/`);
        await page.getByLabel('用户名').fill('web-e2e');
        await page.getByLabel('密码').fill('web-e2e-password');
        await page.getByRole('button', { name: '登录' }).click();
        await page.getByText('还没有图片').waitFor();
        await page.getByRole('navigation').getByRole('link', { name: '上传', exact: true }).click();
        await page.locator('input[type=file]').setInputFiles([{ name: '经过 nginx.jpg', mimeType: 'image/jpeg', buffer: await photo(640, 480) }]);
        await page.locator('.upload-item[data-status=done]').waitFor();
        await page.getByRole('navigation').getByRole('link', { name: '图库', exact: true }).click();
        await page.locator('.card-name', { hasText: '经过 nginx.jpg' }).waitFor();
        // The thumbnail came through nginx (/api/thumb.php), allowed by its img-src.
        await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.card-thumb img')].every((img) => img.complete && img.naturalWidth > 0));
        expect(await seriousAxeViolations(page)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    120000,
  );

  test('when a path-form URL is asked, then its body equals the query-form twin', async () => {
    const pairs: Array<[string, string]> = [
      [toolsApi('action=tools&page=2&limit=5'), v1('tools?page=2&limit=5')],
      [toolsApi('action=tools&category_id=2'), v1('tools?category_id=2')],
      [toolsApi('action=search&q=%E6%88%AA%E5%9B%BE'), v1('tools/search?q=%E6%88%AA%E5%9B%BE')],
      [toolsApi('action=search&q=jietu&limit=3'), v1('tools/search?q=jietu&limit=3')],
      [toolsApi('action=categories'), v1('categories')],
      [toolsApi('action=category&id=1&page=1&limit=3'), v1('categories/1?page=1&limit=3')],
      [toolsApi('action=category&id=abc'), v1('categories/abc')],
      [toolsApi('action=stats'), v1('stats')],
      [toolsApi('action=miniapp&type=ads'), v1('miniapp/ads')],
      [toolsApi('action=tool&slug=no-such-tool'), v1('tools/no-such-tool')],
      [toolsApi('action=tools&page=0'), v1('tools?page=0')],
    ];
    for (const [queryUrl, pathUrl] of pairs) {
      const a = await fetch(queryUrl, withKey);
      const b = await fetch(pathUrl, withKey);
      expect({ url: pathUrl, status: b.status }).toEqual({ url: pathUrl, status: a.status });
      expect(await b.json()).toEqual(await a.json());
    }
  });

  test('when a tool is read in both styles, then both give the same tool and each counts one visit', async () => {
    const a = (await (await fetch(toolsApi('action=tool&slug=vscode'), withKey)).json()) as any;
    const b = (await (await fetch(v1('tools/vscode'), withKey)).json()) as any;
    expect(a.success).toBe(true);
    expect(b.data.visits).toBe(a.data.visits + 1);
    const { visits: _va, updated_at: _ua, ...restA } = a.data;
    const { visits: _vb, updated_at: _ub, ...restB } = b.data;
    expect(restB).toEqual(restA);
  });

  test('when an unknown /api path or a probe (in any case, with a trailing slash) is asked, then nginx answers 404 in the tools envelope', async () => {
    const paths = ['/metrics', '/healthz', '/readyz/', '/Metrics', '/HEALTHZ', '/api/nope', '/api/v2/tools'];
    for (const url of [v1('nope'), v1('tools/a/b'), ...paths.map((path) => `${platform.baseUrl}${path}`)]) {
      const res = await fetch(url, withKey);
      expect({ url, status: res.status }).toEqual({ url, status: 404 });
      expect(await res.json()).toEqual({ success: false, error: { code: 404, message: '资源不存在' } });
    }
  });

  test('when the website is asked through nginx, then the tools service renders it, nginx caches pages briefly and compresses them, and /go/ is never cached', async () => {
    const site = (path: string, init?: RequestInit) => fetch(`${platform.baseUrl}${path}`, init);
    const first = await site('/category/developer');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(first.headers.get('x-cache-status')).toBe('MISS');
    expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const page = await first.text();
    expect(page).toContain(`<link rel="canonical" href="${platform.baseUrl}/category/developer">`);
    const second = await site('/category/developer');
    expect(second.headers.get('x-cache-status')).toBe('HIT');
    expect(await second.text()).toBe(page);
    // A HIT never reached a replica: its access log line names no upstream.
    const [missed, hit] = await accessLogFor([requestIdOf(first), requestIdOf(second)]);
    expect(platform.tools.map(address)).toContain(missed!.upstream);
    expect(hit!.upstream).toBe('');

    const compressed = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${platform.baseUrl}/category/developer`, { headers: { 'Accept-Encoding': 'gzip' } }, resolve).on('error', reject);
    });
    compressed.resume();
    expect(compressed.headers['content-encoding']).toBe('gzip');

    const css = /<link rel="stylesheet" href="([^"]+)">/.exec(page)![1]!;
    const asset = await site(css);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await site('/en/')).headers.get('content-language')).toBe('en');
    expect(await (await site('/robots.txt')).text()).toContain(`Sitemap: ${platform.baseUrl}/sitemap.xml`);
    expect(await (await site('/sitemap-tools-1.xml')).text()).toContain(`<loc>${platform.baseUrl}/tool/vscode</loc>`);
    const missing = await site('/no/such/page');
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);

    const visits = async () => {
      const client = new Client({ connectionString: platform.toolsDatabaseUrl });
      await client.connect();
      try {
        return Number((await client.query("SELECT visits FROM tools WHERE slug = 'figma'")).rows[0].visits);
      } finally {
        await client.end();
      }
    };
    const before = await visits();
    for (let i = 0; i < 3; i++) {
      const go = await site('/go/figma', { redirect: 'manual' });
      expect([go.status, go.headers.get('location'), go.headers.get('x-cache-status')]).toEqual([302, 'https://www.figma.com/', null]);
    }
    expect(await visits()).toBe(before + 3);
  });

  test('when an image is uploaded, then its url is served by nginx from the volume with nosniff and cache headers', async () => {
    const jpeg = await photo(800, 600);
    const { body } = await upload(jpeg, '风景.jpg');
    expect(body.code).toBe(0);
    expect(body.data).toMatchObject({ original_name: '风景.jpg', file_size: jpeg.length, width: 800, height: 600 });
    expect(body.data.url.startsWith(`${platform.baseUrl}/i/`)).toBe(true);

    const file = await fetch(body.data.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('cache-control')).toContain('max-age=');
    expect(Buffer.from(await file.arrayBuffer()).equals(jpeg)).toBe(true);

    const thumb = await fetch(body.data.thumb_url);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([400, 300]);

    const del = await fetch(imageApi('action=delete'), {
      method: 'POST',
      headers: { 'X-API-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `id=${body.data.id}`,
    });
    expect(await del.json()).toMatchObject({ code: 0 });
    const gone = await fetch(body.data.url);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ code: 1, msg: '图片不存在' });
    expect((await fetch(body.data.thumb_url)).status).toBe(404);
  });

  const keyOf = (url: string) => new URL(url).pathname.replace(/^\/i\//, '');
  const imageHeaders = (res: Response) => ({
    status: res.status,
    type: res.headers.get('content-type'),
    nosniff: res.headers.get('x-content-type-options'),
    cacheControl: res.headers.get('cache-control'),
  });
  const SERVED = { status: 200, type: 'image/jpeg', nosniff: 'nosniff', cacheControl: 'public, max-age=31536000, immutable' };
  async function post(action: string, id: number): Promise<unknown> {
    const res = await fetch(imageApi(`action=${action}`), {
      method: 'POST',
      headers: { 'X-API-Token': token, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `id=${id}`,
    });
    return res.json();
  }

  testOnS3('when an image in the bucket is binned, then nginx stops serving it at once, even just after serving it; restored, it is served again with the same headers', async () => {
    const jpeg = await photo(640, 480);
    const { body } = await upload(jpeg, 'bucket.jpg');
    const url = body.data.url as string;
    const bucket = platform.bucket!;
    // In the bucket, not on the volume.
    expect(existsSync(path.join(platform.storageDir, 'public', keyOf(url)))).toBe(false);
    expect((await fetch(`${bucket.endpoint}/${bucket.name}/${bucket.prefix}public/${keyOf(url)}`)).status).toBe(200);

    const first = await fetch(url);
    expect(imageHeaders(first)).toEqual(SERVED);
    expect(Buffer.from(await first.arrayBuffer()).equals(jpeg)).toBe(true);
    // The store's own headers stay behind nginx; its validators pass through, so clients revalidate.
    expect([...first.headers.keys()].filter((name) => name.startsWith('x-amz-'))).toEqual([]);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const revalidated = await fetch(url, { headers: { 'If-None-Match': etag } });
    expect(revalidated.status).toBe(304);
    // A client's query never reaches the bucket: the type stays the image's.
    const overridden = await fetch(`${url}?response-content-type=text/html`);
    expect(imageHeaders(overridden)).toEqual(SERVED);
    await overridden.arrayBuffer();

    expect(await post('delete', body.data.id)).toMatchObject({ code: 0 });
    for (const init of [{}, { headers: { 'If-None-Match': etag } }]) {
      const gone = await fetch(url, init);
      expect([gone.status, await gone.json()]).toEqual([404, { code: 1, msg: '图片不存在' }]);
    }
    expect((await fetch(body.data.thumb_url)).status).toBe(404);

    expect(await post('restore', body.data.id)).toMatchObject({ code: 0 });
    const back = await fetch(url);
    expect(imageHeaders(back)).toEqual(SERVED);
    expect(Buffer.from(await back.arrayBuffer()).equals(jpeg)).toBe(true);
    expect((await fetch(body.data.thumb_url)).status).toBe(200);
  });

  testOnS3('when storage:migrate moves the images to the volume and back, then nginx serves each from where it is with the same headers, and a binned one stays gone', async () => {
    const kept = await photo(300, 200);
    const binned = await photo(200, 300);
    const keptImage = (await upload(kept, 'kept.jpg')).body.data;
    const binnedImage = (await upload(binned, 'binned.jpg')).body.data;
    expect(await post('delete', binnedImage.id)).toMatchObject({ code: 0 });
    const served = async (url: string, bytes: Buffer) => {
      const res = await fetch(url);
      expect(imageHeaders(res)).toEqual(SERVED);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    };

    const toLocal = runAdmin('images', { ...platform.env.images, STORAGE_BACKEND: 'local' }, ['storage:migrate', '--to', 'local']);
    expect(toLocal).toContain('every image is on local');
    expect(existsSync(path.join(platform.storageDir, 'public', keyOf(keptImage.url)))).toBe(true);
    await served(keptImage.url, kept);
    expect((await fetch(binnedImage.url)).status).toBe(404);
    expect((await fetch(keptImage.thumb_url)).status).toBe(200);

    const toS3 = runAdmin('images', platform.env.images, ['storage:migrate', '--to', 's3']);
    expect(toS3).toContain('every image is on s3');
    expect(existsSync(path.join(platform.storageDir, 'public', keyOf(keptImage.url)))).toBe(false);
    await served(keptImage.url, kept);
    expect((await fetch(binnedImage.url)).status).toBe(404);
    expect(await post('restore', binnedImage.id)).toMatchObject({ code: 0 });
    await served(binnedImage.url, binned);
  });

  /** A request to nginx on 127.0.0.1 with the Host header a client on another name would send. */
  function viaHost(host: string, method: string, pathAndQuery: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${platform.baseUrl}${pathAndQuery}`, { method, headers: { ...headers, Host: host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  test('when the app is reached under an allowed host (PUBLIC_HOSTS) through nginx, then the links are on that host and work there; a forged Host gets PUBLIC_BASE_URL', async () => {
    const port = new URL(platform.baseUrl).port;
    const boundary = 'public-hosts-boundary';
    const jpeg = await photo(64, 48);
    const multipart = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="lan.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      jpeg,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const headers = { 'X-API-Token': token, 'Content-Type': `multipart/form-data; boundary=${boundary}` };
    const lan = await viaHost(`localhost:${port}`, 'POST', '/api/image.php?action=upload', headers, multipart);
    expect(lan.status).toBe(200);
    const uploaded = JSON.parse(lan.text) as { code: number; data: { url: string; thumb_url: string; links: { delete: string } } };
    expect(uploaded.code).toBe(0);
    expect(uploaded.data.url.startsWith(`http://localhost:${port}/i/`)).toBe(true);
    expect(uploaded.data.thumb_url.startsWith(`http://localhost:${port}/api/thumb.php?`)).toBe(true);
    expect(uploaded.data.links.delete.startsWith(`http://localhost:${port}/api/delete.php?`)).toBe(true);
    // Served there by nginx (the path is the same under every host).
    const file = await viaHost(`localhost:${port}`, 'GET', new URL(uploaded.data.url).pathname, {});
    expect(file.status).toBe(200);
    const thumb = await viaHost(`localhost:${port}`, 'GET', uploaded.data.thumb_url.slice(`http://localhost:${port}`.length), {});
    expect(thumb.status).toBe(200);

    const forged = await viaHost(`evil.example:${port}`, 'GET', '/api/image.php?action=list', { 'X-API-Token': token, 'X-Forwarded-Host': `localhost:${port}` });
    expect(forged.status).toBe(200);
    const listed = JSON.parse(forged.text) as { data: { list: Array<{ url: string }> } };
    expect(listed.data.list.length).toBeGreaterThan(0);
    for (const item of listed.data.list) expect(item.url.startsWith(`${platform.baseUrl}/i/`)).toBe(true);
    expect(forged.text).not.toContain('evil.example');
    expect(forged.text).not.toContain('localhost');
  });

  test("when an upload's deletion link is opened through nginx, then the page only asks; its POST takes the image off /i/", async () => {
    const { body } = await upload(await photo(320, 240), 'link.jpg');
    expect(body.data.links.delete.startsWith(`${platform.baseUrl}/api/delete.php?`)).toBe(true);
    const page = await fetch(body.data.links.delete);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('link.jpg');
    expect((await fetch(body.data.url)).status).toBe(200);
    const confirmed = await fetch(body.data.links.delete, { method: 'POST' });
    expect(confirmed.status).toBe(200);
    expect((await fetch(body.data.url)).status).toBe(404);
  });

  test('when a share link and a public image page are opened through nginx, then /s/ and /p/ reach the image service: the album, its password form, the revoked page', async () => {
    const { body } = await upload(await photo(320, 240), 'shared.jpg');
    const owner = (action: string, fields: Record<string, string>) =>
      fetch(imageApi(`action=${action}`), { method: 'POST', headers: { 'X-API-Token': token }, body: new URLSearchParams(fields) }).then((res) => res.json() as Promise<any>);
    const categoryId = (await (await fetch(imageApi('action=categories'), { headers: { 'X-API-Token': token } })).json()).data.list[0].id;
    const link = (await owner('create_share_link', { category_id: String(categoryId), password: 'album-pass-1' })).data;
    expect(link.url.startsWith(`${platform.baseUrl}/s/`)).toBe(true);
    const browser = { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' };
    const form = await fetch(link.url, { headers: browser });
    expect([form.status, form.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await form.text()).toContain('<form method="post">');
    const unlocked = await fetch(link.url, { method: 'POST', headers: browser, body: new URLSearchParams({ password: 'album-pass-1' }), redirect: 'manual' });
    expect(unlocked.status).toBe(303);
    const album = await fetch(link.url, { headers: { ...browser, Cookie: unlocked.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).join('; ') } });
    expect(album.status).toBe(200);
    const albumPage = await album.text();
    expect(albumPage).toContain(`href="${body.data.url}"`);
    // The thumbnail the page shows comes through nginx too.
    expect((await fetch(body.data.thumb_url)).status).toBe(200);
    expect((await owner('revoke_share_link', { id: String(link.id) })).code).toBe(0);
    expect((await fetch(link.url, { headers: browser })).status).toBe(410);

    const page = (await owner('set_image_page', { id: String(body.data.id), public: '1' })).data;
    const shown = await fetch(page.page_url);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain(`<meta property="og:image" content="${body.data.url}">`);
  });

  test('when an image a deletion link binned is restored, then the same link through nginx is the 404 page, GET and POST, and the image stays on /i/', async () => {
    const { body } = await upload(await photo(320, 240), 'restored.jpg');
    const link = body.data.links.delete as string;
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    const restore = await fetch(imageApi(`action=restore&id=${body.data.id}`), { method: 'POST', headers: { 'X-API-Token': token } });
    expect(await restore.json()).toEqual({ code: 0, msg: '恢复成功' });
    expect((await fetch(link)).status).toBe(404);
    expect((await fetch(link, { method: 'POST' })).status).toBe(404);
    expect((await fetch(body.data.url)).status).toBe(200);
  });

  test('when an upload through nginx carries its token in the body, then it is stored with the token before the file, and refused unread (请先登录, nothing kept) without one or with it after the file', async () => {
    const totalBefore = await listTotal();
    const usedBefore = await usedBytes();
    const tmpBefore = readdirSync(path.join(platform.storageDir, 'tmp'));
    const send = async (parts: Array<['token', string] | ['file', Buffer]>) => {
      const form = new FormData();
      for (const [name, value] of parts) {
        if (name === 'token') form.append('token', value);
        else form.append('file', new Blob([new Uint8Array(value)], { type: 'image/jpeg' }), 'body-token.jpg');
      }
      const res = await fetch(imageApi('action=upload'), { method: 'POST', body: form });
      return { status: res.status, body: await res.json() };
    };
    // Most of nginx's 2 MB limit, so the service stops reading long before the end of it.
    const large = randomBytes(1900 * 1024);
    expect(await send([['file', large]])).toEqual({ status: 200, body: { code: 1, msg: '请先登录' } });
    expect(await send([['file', large], ['token', token]])).toEqual({ status: 200, body: { code: 1, msg: '请先登录' } });
    expect(await listTotal()).toBe(totalBefore);
    expect(await usedBytes()).toBe(usedBefore);
    expect(readdirSync(path.join(platform.storageDir, 'tmp'))).toEqual(tmpBefore);

    const stored = await send([['token', token], ['file', await photo(320, 240)]]);
    expect(stored).toMatchObject({ status: 200, body: { code: 0, msg: '上传成功' } });
    expect(await listTotal()).toBe(totalBefore + 1);
  });

  test('when the Lsky, Chevereto and EasyImage clients send through nginx, then /compat/ reaches the image service and the file is served on /i/', async () => {
    const jpeg = await photo(320, 240);
    const file = () => new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' });
    const lskyForm = new FormData();
    lskyForm.append('file', file(), 'lsky.jpg');
    lskyForm.append('ssl', 'true');
    const lsky = await fetch(`${platform.baseUrl}/compat/lsky/api/v1/upload`, { method: 'POST', body: lskyForm, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
    const lskyBody = (await lsky.json()) as { status: boolean; data: { key: string; links: { url: string } } };
    expect(lskyBody.status).toBe(true);
    const served = await fetch(lskyBody.data.links.url);
    expect(Buffer.from(await served.arrayBuffer()).equals(jpeg)).toBe(true);
    const deleted = await fetch(`${platform.baseUrl}/compat/lsky/api/v1/images/:${lskyBody.data.key}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
    expect(await deleted.json()).toEqual({ status: true, message: '删除成功', data: {} });
    expect((await fetch(lskyBody.data.links.url)).status).toBe(404);

    const cheveretoForm = new FormData();
    cheveretoForm.append('key', token);
    cheveretoForm.append('format', 'txt');
    cheveretoForm.append('source', file(), 'chevereto.jpg');
    const chevereto = await fetch(`${platform.baseUrl}/compat/chevereto/api/1/upload`, { method: 'POST', body: cheveretoForm });
    expect((await fetch(await chevereto.text())).status).toBe(200);

    const easyForm = new FormData();
    easyForm.append('token', token);
    easyForm.append('image', file(), 'easy.jpg');
    const easy = (await (await fetch(`${platform.baseUrl}/compat/easyimage/api/index.php`, { method: 'POST', body: easyForm })).json()) as { result: string; url: string };
    expect(easy.result).toBe('success');
    expect((await fetch(easy.url)).status).toBe(200);
  });

  test('when an upload is over the nginx body limit, then nginx answers in the images envelope and nothing is stored', async () => {
    const totalBefore = await listTotal();
    const usedBefore = await usedBytes();
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const form = new FormData();
    form.append('file', new Blob([big], { type: 'image/jpeg' }), 'big.jpg');
    const res = await fetch(imageApi('action=upload'), { method: 'POST', body: form, headers: { 'X-API-Token': token } });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ code: 1, msg: '文件大小超出限制' });
    expect(await listTotal()).toBe(totalBefore);
    expect(await usedBytes()).toBe(usedBefore);
  });

  test('when nginx itself refuses a request, then it answers in the envelope of the path\'s owner', async () => {
    const answer = async (res: Response) => ({ status: res.status, body: await res.json() });
    // A body over client_max_body_size on a tool path (GET bodies reach nginx's limit too).
    const big = Buffer.alloc(3 * 1024 * 1024, 1);
    expect(await answer(await fetch(toolsApi('action=stats'), { method: 'POST', body: big }))).toEqual({
      status: 413,
      body: { success: false, error: { code: 413, message: '参数错误: 请求体过大' } },
    });
    // Request headers over nginx's buffers.
    const hugeHeader = { 'X-Padding': 'p'.repeat(20 * 1024) };
    expect(await answer(await fetch(imageApi('action=list'), { headers: hugeHeader }))).toEqual({ status: 400, body: { code: 1, msg: '请求格式错误' } });
    expect(await answer(await fetch(toolsApi('action=stats'), { headers: hugeHeader }))).toEqual({
      status: 400,
      body: { success: false, error: { code: 400, message: '参数错误: 请求无效' } },
    });
    // A URL too long for nginx to read: no path to tell the owner by, so the tools envelope.
    expect(await answer(await fetch(imageApi(`action=list&keyword=${'k'.repeat(9000)}`)))).toEqual({
      status: 414,
      body: { success: false, error: { code: 414, message: '参数错误: URL 过长' } },
    });
    // A folder under /i/ is no image: 404, as for a missing file.
    const jpeg = await photo(16, 16);
    const { body } = await upload(jpeg, 'folder-probe.jpg');
    const folder = new URL('.', body.data.url).toString();
    expect(await answer(await fetch(folder))).toEqual({ status: 404, body: { code: 1, msg: '图片不存在' } });
    // The internal error locations are not public.
    expect(await answer(await fetch(`${platform.baseUrl}/.nginx-errors/413`))).toEqual({
      status: 404,
      body: { success: false, error: { code: 404, message: '资源不存在' } },
    });
  });

  test('when responses come back, then each carries the request id nginx gave it, and the service logged it', async () => {
    const tools = await fetch(toolsApi('action=categories'), withKey);
    const images = await fetch(imageApi('action=list'), { headers: { 'X-API-Token': token } });
    for (const [res, replicas] of [
      [tools, platform.tools],
      [images, platform.images],
    ] as const) {
      const requestId = res.headers.get('x-request-id');
      expect(requestId).toMatch(/^[0-9a-f]{32}$/);
      await res.arrayBuffer();
      const loggedLines = () =>
        replicas.flatMap((r) => r.output.join('').split('\n')).filter((line) => line.includes(requestId!));
      // The log line reaches us through a replica's stdout pipe (services write logs in batches, at least once a second).
      await Promise.any(replicas.map((replica) => whenReplicaWrites(replica, (output) => output.includes(requestId!))));
      const logged = loggedLines().map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged.length).toBeGreaterThanOrEqual(1);
    }
  });

  test('when a token or an API key travels in the query, then nginx\'s access log does not keep it', async () => {
    const images = await fetch(imageApi(`action=profile&token=${token}`));
    expect(((await images.json()) as { code: number }).code).toBe(0);
    const tools = await fetch(toolsApi(`action=stats&api_key=${apiKey}`));
    expect(tools.status).toBe(200);
    await tools.arrayBuffer();
    const logged = await accessLogFor([requestIdOf(images), requestIdOf(tools)]);
    expect(logged.map((entry) => entry.path)).toEqual(['/api/image.php', '/api/index.php']);
    expect(JSON.stringify(logged)).not.toContain(token);
    expect(JSON.stringify(logged)).not.toContain(apiKey);
  });

  test("when one key's hourly limit is spent across both tools replicas, then it holds exactly", async () => {
    const limited = printedSecret(
      runAdmin('tools', platform.env.tools, ['key:create', '--name', 'e2e-limited', '--limit', '6']),
      /^key: (\S+)$/m,
    );
    const statuses: number[] = [];
    const remaining: Array<string | null> = [];
    const requestIds: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(toolsApi('action=stats'), { headers: { 'X-API-Key': limited } });
      statuses.push(res.status);
      requestIds.push(requestIdOf(res));
      remaining.push(res.headers.get('x-ratelimit-remaining'));
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await res.json()).toEqual({ success: false, error: { code: 429, message: '请求过于频繁' } });
      } else {
        await res.arrayBuffer();
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0', '0']);
    // Both replicas served those requests (nginx's access log names the upstream).
    const upstreams = new Set((await accessLogFor(requestIds)).map((entry) => entry.upstream));
    expect(upstreams).toEqual(new Set(platform.tools.map(address)));
  });

  test('when one replica of each service is killed, then requests keep succeeding; when all are gone, nginx answers 502 in each envelope', async () => {
    await stopProcess(platform.images[0]!.process, 'SIGKILL');
    await stopProcess(platform.tools[0]!.process, 'SIGKILL');
    for (let i = 0; i < 6; i++) {
      const tools = await fetch(toolsApi('action=tools&limit=2'), withKey);
      expect(tools.status).toBe(200);
      await tools.arrayBuffer();
      const list = await fetch(imageApi('action=list'), { headers: { 'X-API-Token': token } });
      expect(((await list.json()) as { code: number }).code).toBe(0);
    }
    const { body } = await upload(await photo(64, 48), 'after-kill.jpg');
    expect(body.code).toBe(0);

    const cached = await fetch(`${platform.baseUrl}/tool/vscode`);
    expect(cached.status).toBe(200);
    const cachedPage = await cached.text();

    await stopProcess(platform.images[1]!.process, 'SIGKILL');
    await stopProcess(platform.tools[1]!.process, 'SIGKILL');
    // A page nginx holds outlives the outage; one it does not is nginx's own page, in HTML.
    const stale = await fetch(`${platform.baseUrl}/tool/vscode`);
    expect(stale.status).toBe(200);
    expect(['HIT', 'STALE']).toContain(stale.headers.get('x-cache-status'));
    expect(await stale.text()).toBe(cachedPage);
    const uncached = await fetch(`${platform.baseUrl}/search?q=${randomBytes(4).toString('hex')}`);
    expect([uncached.status, uncached.headers.get('content-type')]).toEqual([502, 'text/html; charset=utf-8']);
    expect(await uncached.text()).toContain('服务暂时不可用');
    const tools = await fetch(toolsApi('action=tools'), withKey);
    expect(tools.status).toBe(502);
    expect(await tools.json()).toEqual({ success: false, error: { code: 502, message: '服务暂时不可用，请稍后重试' } });
    const images = await fetch(imageApi('action=list'), { headers: { 'X-API-Token': token } });
    expect(images.status).toBe(502);
    expect(await images.json()).toEqual({ code: 1, msg: '服务暂时不可用，请稍后重试' });
  });

  // ---- failures: what the logs keep, and how nginx finds replicas again ------------------------
  // These tests leave replicas dead or restarted; each first brings the replicas it needs to the
  // state it describes.

  test('when every replica is down, then tokens and API keys in the query, however spelled, reach neither nginx log, and the access log tells why each request failed', async () => {
    await Promise.all([...platform.images, ...platform.tools].map((replica) => stopProcess(replica.process, 'SIGKILL')));
    const secrets: string[] = [];
    const secret = () => {
      const value = `SECRET-${randomBytes(8).toString('hex')}`;
      secrets.push(value);
      return value;
    };
    const imagesDown = { code: 1, msg: '服务暂时不可用，请稍后重试' };
    const toolsDown = { success: false, error: { code: 502, message: '服务暂时不可用，请稍后重试' } };
    const asked: Array<{ url: string; init?: RequestInit; status: number; body: unknown }> = [
      ...['token', 'token[]', 'token[0]', 'token%5B%5D', 'TOKEN'].map((name) => ({
        url: imageApi(`action=list&${name}=${secret()}`),
        status: 502,
        body: imagesDown,
      })),
      ...['api_key', 'api_key[]', 'api_key[0]', 'api_key%5B%5D'].flatMap((name) => [
        { url: toolsApi(`action=stats&${name}=${secret()}`), status: 502, body: toolsDown },
        { url: v1(`tools?${name}=${secret()}`), status: 502, body: toolsDown },
      ]),
      // nginx's own refusals log at `error` with the request line too: a body over the limit, a missing file.
      {
        url: toolsApi(`action=stats&api_key=${secret()}`),
        init: { method: 'POST', body: Buffer.alloc(3 * 1024 * 1024, 1) },
        status: 413,
        body: { success: false, error: { code: 413, message: '参数错误: 请求体过大' } },
      },
      { url: `${platform.baseUrl}/i/no-such-image.jpg?token=${secret()}`, status: 404, body: { code: 1, msg: '图片不存在' } },
    ];
    const requestIds: string[] = [];
    for (const { url, init, status, body } of asked) {
      const res = await fetch(url, init);
      requestIds.push(requestIdOf(res));
      expect({ url, status: res.status, body: await res.json() }).toEqual({ url, status, body });
    }

    const logged = await accessLogFor(requestIds);
    expect(logged.map((entry) => [entry.path, entry.status])).toEqual(asked.map(({ url, status }) => [new URL(url).pathname, status]));
    // Each 502 says why: every replica tried refused (one address and one 502 per try), or none was
    // in rotation any more (the upstream group's name, "no live upstreams").
    for (const entry of logged.filter((e) => e.status === 502)) {
      const group = entry.path === '/api/image.php' ? 'images_service' : 'tools_service';
      const replicas = entry.path === '/api/image.php' ? platform.images : platform.tools;
      const tried = entry.upstream.split(', ');
      expect(tried.every((a) => a === group || replicas.some((r) => address(r) === a))).toBe(true);
      expect(entry.upstream_status.split(', ')).toEqual(tried.map(() => '502'));
    }

    const errorLog = platform.errorLog();
    const accessLog = platform.accessLog().join('\n');
    // The error log is the one nginx writes (its start is logged at notice), yet no message in it
    // names a request: those would end with `request: "GET /api/...?token=..."`.
    expect(errorLog).toContain('start worker process');
    expect(errorLog).not.toContain('request: "');
    for (const value of secrets) {
      expect(errorLog).not.toContain(value);
      expect(accessLog).not.toContain(value);
    }
  });

  test('when an images replica comes back after all were down, then nginx sends it traffic within about a second of it being ready', async () => {
    await Promise.all(platform.images.map((replica) => stopProcess(replica.process, 'SIGKILL')));
    const down = await fetch(imageApi('action=list'), { headers: { 'X-API-Token': token } });
    expect(down.status).toBe(502);
    await down.arrayBuffer();
    const downAt = Date.now();
    const [back] = platform.images;
    await platform.restartReplica(back!);
    const readyAt = Date.now();

    // Refusing nginx (at that 502 or just before it) took both replicas out of rotation for
    // fail_timeout: 1 s, which nginx counts in whole seconds, so at most 2 s. 4 s leaves room for a
    // busy machine. nginx's default (10 s) keeps the replica out until 10-11 s after its refusal,
    // so this fails with it unless the restart above took over 6 s (the message shows how long).
    let answer = { status: 0, code: -1, requestId: '' };
    while (Date.now() < readyAt + 4000) {
      const res = await fetch(imageApi('action=list'), { headers: { 'X-API-Token': token } });
      answer = { status: res.status, code: ((await res.json()) as { code: number }).code, requestId: requestIdOf(res) };
      if (res.status === 200) break;
      await pace(100);
    }
    expect({ status: answer.status, code: answer.code, restartMs: readyAt - downAt }).toEqual({ status: 200, code: 0, restartMs: readyAt - downAt });
    // Answered by the replica that is back (the other, still dead, may have refused first).
    const [entry] = await accessLogFor([answer.requestId]);
    expect(entry!.status).toBe(200);
    expect(entry!.upstream.split(', ').at(-1)).toBe(address(back!));
  });

  test('when a tools replica is killed, then GETs that meet it are passed to the other and all 20 succeed', async () => {
    await Promise.all(platform.tools.map((replica) => platform.restartReplica(replica)));
    await untilNginxUses(platform.tools, toolsApi('action=stats'), withKey);
    const [dying, living] = platform.tools as [Replica, Replica];
    await stopProcess(dying.process, 'SIGKILL');

    const statuses: number[] = [];
    const requestIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await fetch(i % 2 ? v1('stats') : toolsApi('action=tools&limit=2'), withKey);
      statuses.push(res.status);
      requestIds.push(requestIdOf(res));
      expect(((await res.json()) as { success: boolean }).success).toBe(true);
    }
    expect(statuses).toEqual(Array(20).fill(200));
    const logged = await accessLogFor(requestIds);
    // Every answer came from the living replica; the GETs that went to the dead one first were
    // refused there (502 in upstream_status) and passed on.
    expect(logged.every((entry) => entry.upstream.split(', ').at(-1) === address(living))).toBe(true);
    const passedOn = logged.filter((entry) => entry.upstream !== address(living));
    expect(passedOn.length).toBeGreaterThanOrEqual(1);
    for (const entry of passedOn) {
      expect(entry).toMatchObject({ status: 200, upstream: `${address(dying)}, ${address(living)}`, upstream_status: '502, 200' });
    }
  });

  test('when an upload meets an images replica that refuses the connection, then it is passed to the other and stored once', async () => {
    const [living, dying] = platform.images as [Replica, Replica];
    await Promise.all(platform.images.filter((r) => r.process.exitCode !== null || r.process.signalCode !== null).map((r) => platform.restartReplica(r)));
    await untilNginxUses(platform.images, imageApi('action=list'), { headers: { 'X-API-Token': token } });
    const totalBefore = await listTotal();
    await stopProcess(dying.process, 'SIGKILL');

    // Round robin alternates between the two, so one of two uploads goes to the dead replica first.
    const requestIds: string[] = [];
    for (const name of ['refused-1.jpg', 'refused-2.jpg']) {
      const { status, body, requestId } = await upload(await photo(32, 24), name);
      requestIds.push(requestId);
      expect({ status, code: body.code }).toEqual({ status: 200, code: 0 });
    }
    const uploads = await accessLogFor(requestIds);
    expect(uploads.map((entry) => entry.upstream_status).sort()).toEqual(['200', '502, 200']);
    expect(uploads.map((entry) => entry.upstream).sort()).toEqual([address(living), `${address(dying)}, ${address(living)}`].sort());
    expect(await listTotal()).toBe(totalBefore + 2);
  });

  test('when an upload has reached an images replica that then dies, then nginx answers 502 and does not replay it on the other', async () => {
    const [receiving, other] = platform.images as [Replica, Replica];
    // It receives uploads into tmp/ (UPLOAD_MEMORY_BYTES=0), so that a temp file shows the upload reached it.
    await platform.restartReplica(receiving, { env: { UPLOAD_MEMORY_BYTES: '0' } });
    await stopProcess(other.process, 'SIGKILL');
    const totalBefore = await listTotal();
    const tmpDir = path.join(platform.storageDir, 'tmp');
    const tmpBefore = new Set(readdirSync(tmpDir));

    // An upload whose body comes in two halves: the first reaches the only live replica, which
    // starts writing it to tmp/; the second is never sent.
    const file = await photo(400, 300);
    const boundary = `----e2e${randomBytes(8).toString('hex')}`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="dies.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const url = new URL(imageApi('action=upload'));
    const request = http.request(url, {
      method: 'POST',
      headers: {
        'X-API-Token': token,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': head.length + file.length + tail.length,
      },
    });
    const answered = new Promise<{ status: number; requestId: string; body: unknown }>((resolve, reject) => {
      request.on('error', reject);
      request.once('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('end', () =>
          resolve({ status: res.statusCode!, requestId: String(res.headers['x-request-id']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      });
    });
    request.write(Buffer.concat([head, file.subarray(0, file.length / 2)]));
    // The receiving replica creates its temp file as the file part starts.
    await new Promise<void>((resolve, reject) => {
      const watcher = watch(tmpDir);
      const timer = setTimeout(() => {
        watcher.close();
        reject(new Error(`the upload did not reach ${receiving.name}\n${receiving.output.join('')}`));
      }, 10000);
      const look = () => {
        if (!readdirSync(tmpDir).some((name) => !tmpBefore.has(name))) return;
        clearTimeout(timer);
        watcher.close();
        resolve();
      };
      watcher.on('change', look);
      look();
    });

    // The other replica is back and in nginx's rotation, so a replay would have somewhere to go.
    await platform.restartReplica(other);
    await untilNginxUses([other], imageApi('action=list'), { headers: { 'X-API-Token': token } });
    await stopProcess(receiving.process, 'SIGKILL');

    const answer = await answered;
    request.destroy();
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 502, body: { code: 1, msg: '服务暂时不可用，请稍后重试' } });
    const [entry] = await accessLogFor([answer.requestId]);
    // Sent to the replica that died and to nobody after it. (Before it, the other replica may appear:
    // dead then, it refused the connection, and a request that reached nobody is passed on.)
    expect(entry).toMatchObject({ method: 'POST', status: 502 });
    const tried = entry!.upstream.split(', ');
    expect(tried.slice(tried.indexOf(address(receiving)))).toEqual([address(receiving)]);
    expect(entry!.upstream_status.split(', ')).toEqual(tried.map(() => '502'));
    expect(other.output.join('')).not.toContain(answer.requestId);
    expect(await listTotal()).toBe(totalBefore);

    await platform.restartReplica(receiving);
  });
});
