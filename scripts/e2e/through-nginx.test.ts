/**
 * The platform as operators run it: the built services (two replicas each) on
 * loopback, behind a real nginx rendered from proxy/nginx.conf.template, on real
 * Postgres and Redis. Every operation is driven through nginx.
 */
import sharp from 'sharp';
import { realServices } from './real-services';
import { buildServices, runAdmin, startPlatform, stopProcess, type Platform } from './platform';

const real = realServices();
const describeReal = real ? describe : describe.skip;

const NGINX_BODY_LIMIT = '2m';

function printedSecret(output: string, pattern: RegExp): string {
  const match = pattern.exec(output);
  if (!match) throw new Error(`admin CLI output without the expected secret:\n${output}`);
  return match[1]!;
}

async function photo(width: number, height: number): Promise<Buffer> {
  const channels = 3;
  const pixels = Buffer.alloc(width * height * channels);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) % 251;
  return sharp(pixels, { raw: { width, height, channels } }).jpeg({ quality: 90 }).toBuffer();
}

describeReal('platform through nginx (two replicas of each service)', () => {
  let platform: Platform;
  let token: string;
  let apiKey: string;

  const imageApi = (query: string) => `${platform.baseUrl}/api/image.php?${query}`;
  const toolsApi = (query: string) => `${platform.baseUrl}/api/index.php?${query}`;
  const v1 = (pathAndQuery: string) => `${platform.baseUrl}/api/v1/${pathAndQuery}`;
  const withKey = { headers: { 'X-API-Key': '' } };

  async function upload(file: Buffer, name: string): Promise<{ status: number; body: any }> {
    const form = new FormData();
    form.append('file', new Blob([file], { type: 'image/jpeg' }), name);
    const res = await fetch(imageApi('action=upload'), { method: 'POST', body: form, headers: { 'X-API-Token': token } });
    return { status: res.status, body: await res.json() };
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

  beforeAll(async () => {
    buildServices();
    platform = await startPlatform(real!, { replicas: 2, clientMaxBodySize: NGINX_BODY_LIMIT });
    token = printedSecret(runAdmin('images', platform.env.images, ['create-user', 'e2e']), /^token \(shown once, store it now\): (\S+)$/m);
    runAdmin('tools', platform.env.tools, ['import', 'services/tools/data/sample-tools.json']);
    apiKey = printedSecret(runAdmin('tools', platform.env.tools, ['key:create', '--name', 'e2e']), /^key: (\S+)$/m);
    withKey.headers['X-API-Key'] = apiKey;
  }, 180000);

  afterAll(async () => {
    await platform?.stop();
  });

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

  test('when an unknown /api/v1 path, /metrics or another path is asked, then nginx answers 404 in the tools envelope', async () => {
    for (const url of [v1('nope'), v1('tools/a/b'), `${platform.baseUrl}/metrics`, `${platform.baseUrl}/healthz`, `${platform.baseUrl}/`]) {
      const res = await fetch(url, withKey);
      expect({ url, status: res.status }).toEqual({ url, status: 404 });
      expect(await res.json()).toEqual({ success: false, error: { code: 404, message: '资源不存在' } });
    }
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
      // The log line reaches us through the replica's stdout pipe: allow it a moment.
      for (let i = 0; i < 30 && loggedLines().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      const logged = loggedLines().map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged.length).toBeGreaterThanOrEqual(1);
    }
  });

  test('when a token or an API key travels in the query, then nginx\'s access log does not keep it', async () => {
    const logStart = platform.accessLog().length;
    const images = await fetch(imageApi(`action=profile&token=${token}`));
    expect(((await images.json()) as { code: number }).code).toBe(0);
    const tools = await fetch(toolsApi(`action=stats&api_key=${apiKey}`));
    expect(tools.status).toBe(200);
    await tools.arrayBuffer();
    const logged = platform.accessLog().slice(logStart).map((line) => JSON.parse(line) as { path: string });
    expect(logged.map((entry) => entry.path)).toEqual(['/api/image.php', '/api/index.php']);
    expect(JSON.stringify(logged)).not.toContain(token);
    expect(JSON.stringify(logged)).not.toContain(apiKey);
  });

  test("when one key's hourly limit is spent across both tools replicas, then it holds exactly", async () => {
    const limited = printedSecret(
      runAdmin('tools', platform.env.tools, ['key:create', '--name', 'e2e-limited', '--limit', '6']),
      /^key: (\S+)$/m,
    );
    const logStart = platform.accessLog().length;
    const statuses: number[] = [];
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(toolsApi('action=stats'), { headers: { 'X-API-Key': limited } });
      statuses.push(res.status);
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
    const upstreams = new Set(
      platform
        .accessLog()
        .slice(logStart)
        .map((line) => JSON.parse(line) as { path: string; upstream: string })
        .filter((entry) => entry.path === '/api/index.php')
        .map((entry) => entry.upstream),
    );
    expect(upstreams).toEqual(new Set(platform.tools.map((r) => `127.0.0.1:${r.port}`)));
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

    await stopProcess(platform.images[1]!.process, 'SIGKILL');
    await stopProcess(platform.tools[1]!.process, 'SIGKILL');
    const tools = await fetch(toolsApi('action=tools'), withKey);
    expect(tools.status).toBe(502);
    expect(await tools.json()).toEqual({ success: false, error: { code: 502, message: '服务暂时不可用，请稍后重试' } });
    const images = await fetch(imageApi('action=list'), { headers: { 'X-API-Token': token } });
    expect(images.status).toBe(502);
    expect(await images.json()).toEqual({ code: 1, msg: '服务暂时不可用，请稍后重试' });
  });
});
