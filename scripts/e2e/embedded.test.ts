/**
 * Embedded mode (`npm start`): both apps in one process behind the Node front
 * door, on PGlite and the in-memory limiter, with the same v1 rewrite file as nginx.
 */
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import type express from 'express';
import { loadConfig as loadImagesConfig } from '../../services/images/src/config';
import { openImagesService } from '../../services/images/src/open-service';
import { ensureDemoUser } from '../../services/images/src/demo';
import { loadConfig as loadToolsConfig } from '../../services/tools/src/config';
import { openToolsService } from '../../services/tools/src/open-service';
import { ensureDemoData } from '../../services/tools/src/demo';
import { createFrontDoor } from '../lib/front-door';
import { loadV1Rewrites } from '../lib/v1-rewrites';

describe('embedded front door (one process, PGlite, in-memory limiter)', () => {
  let dir: string;
  let front: express.Express;
  let closeAll: () => Promise<void>;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-'));
    const imagesConfig = loadImagesConfig({
      DATABASE_URL: 'pglite:memory',
      STORAGE_DIR: path.join(dir, 'images'),
      PUBLIC_BASE_URL: 'http://localhost:8080',
      LOG_LEVEL: 'silent',
    });
    const toolsConfig = loadToolsConfig({ DATABASE_URL: 'pglite:memory', LOG_LEVEL: 'silent' });
    const images = await openImagesService(imagesConfig);
    const tools = await openToolsService(toolsConfig);
    closeAll = async () => {
      await images.close();
      await tools.close();
    };
    token = (await ensureDemoUser(images.db))!;
    const demo = await ensureDemoData(tools.db);
    apiKey = demo.apiKey!;
    expect(demo.importedTools).toBeGreaterThanOrEqual(150);
    front = createFrontDoor({
      imagesApp: images.app,
      toolsApp: tools.app,
      imagesPublicDir: path.join(imagesConfig.storageDir, 'public'),
      v1Rules: loadV1Rewrites(),
      probes: {
        readiness: async () => ({ status: 'ok', images: await images.readiness(), tools: await tools.readiness() }),
        metrics: async () => `${await images.metrics.registry.metrics()}\n${await tools.metrics.registry.metrics()}`,
      },
    });
  }, 120000);

  afterAll(async () => {
    await closeAll?.();
    rmSync(dir, { recursive: true, force: true });
  });

  test('when the demo is seeded a second time, then it changes nothing and reveals no new secret', async () => {
    // ensureDemo* are idempotent: a restart of `npm start` must not duplicate data.
    const res = await request(front).get('/api/index.php?action=stats').set('X-API-Key', apiKey);
    expect(res.status).toBe(200);
    expect(res.body.data.total_tools).toBeGreaterThanOrEqual(150);
  });

  test('when path-form URLs are asked, then each answers as its query-form twin', async () => {
    const pairs: Array<[string, string]> = [
      ['/api/index.php?action=tools&page=2&limit=5', '/api/v1/tools?page=2&limit=5'],
      ['/api/index.php?action=search&q=%E5%8E%8B%E7%BC%A9', '/api/v1/tools/search?q=%E5%8E%8B%E7%BC%A9'],
      ['/api/index.php?action=categories', '/api/v1/categories'],
      ['/api/index.php?action=category&id=1', '/api/v1/categories/1'],
      ['/api/index.php?action=stats', '/api/v1/stats'],
      ['/api/index.php?action=miniapp&type=ads', '/api/v1/miniapp/ads'],
      ['/api/index.php?action=tool&slug=nope-nope', '/api/v1/tools/nope-nope'],
    ];
    for (const [queryUrl, pathUrl] of pairs) {
      const a = await request(front).get(queryUrl).set('X-API-Key', apiKey);
      const b = await request(front).get(pathUrl).set('X-API-Key', apiKey);
      expect([pathUrl, b.status, b.body]).toEqual([pathUrl, a.status, a.body]);
    }
  });

  test('when an unknown path is asked, then the answer is 404 in the tools envelope, as through nginx', async () => {
    for (const url of ['/api/v1/nope', '/nothing', '/api/v1/tools/a/b']) {
      const res = await request(front).get(url);
      expect([url, res.status, res.body]).toEqual([url, 404, { success: false, error: { code: 404, message: '资源不存在' } }]);
    }
    expect((await request(front).get('/nginx-health')).body).toEqual({ status: 'ok' });
  });

  test('when this machine asks for /healthz, /readyz and /metrics, then the platform answers with both services\' readiness and metrics', async () => {
    expect((await request(front).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(front).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', images: { status: 'ok', database: 'ok' }, tools: { status: 'ok', database: 'ok', redis: 'not_configured' } });
    await request(front).get('/api/v1/tools/search?q=png');
    const metrics = await request(front).get('/metrics');
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/tools_http_requests_total\{route="search",method="GET",status="200"\} \d+/);
    expect(metrics.text).toContain('images_process_cpu_seconds_total');
  });

  test('when another machine asks for /healthz, /readyz or /metrics, then it gets the 404 any unknown path gets (they are not public)', async () => {
    const outside = Object.values(os.networkInterfaces()).flat().find((address) => address && address.family === 'IPv4' && !address.internal);
    if (!outside) return; // no non-loopback interface: nothing reaches this process from elsewhere
    const server = http.createServer(front);
    await new Promise<void>((resolve) => server.listen(0, outside.address, resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const probe of ['/healthz', '/readyz', '/metrics']) {
        const res = await fetch(`http://${outside.address}:${port}${probe}`);
        expect([probe, res.status, await res.json()]).toEqual([probe, 404, { success: false, error: { code: 404, message: '资源不存在' } }]);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('when an image is uploaded, then /i/ serves it with nosniff and cache headers, and not after delete', async () => {
    const png = await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 10, g: 200, b: 90, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const up = await request(front)
      .post('/api/image.php?action=upload')
      .set('X-API-Token', token)
      .attach('file', png, 'leaf.png');
    expect(up.body).toMatchObject({ code: 0, data: { width: 300, height: 200, file_size: png.length } });
    const urlPath = new URL(up.body.data.url).pathname;
    expect(urlPath).toMatch(/^\/i\/\d{4}\/\d{2}\/\d{2}\/[A-Za-z0-9_-]{22,}\.png$/);

    const file = await request(front).get(urlPath).buffer(true);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    expect(file.headers['cache-control']).toContain('immutable');
    expect(Buffer.compare(file.body as Buffer, png)).toBe(0);
    const onDisk = readFileSync(path.join(dir, 'images', 'public', urlPath.slice('/i/'.length)));
    expect(onDisk.equals(png)).toBe(true);

    const del = await request(front).post('/api/image.php?action=delete').set('X-API-Token', token).type('form').send({ id: up.body.data.id });
    expect(del.body.code).toBe(0);
    const gone = await request(front).get(urlPath);
    expect([gone.status, gone.body]).toEqual([404, { code: 1, msg: '图片不存在' }]);
  });

  test('when a client sends its own X-Forwarded-For, then it is replaced by the socket address', async () => {
    // The anonymous limit is per client IP: a forged header must not buy a fresh allowance.
    const a = await request(front).get('/api/index.php?action=miniapp&type=ads').set('X-Forwarded-For', '1.2.3.4');
    const b = await request(front).get('/api/index.php?action=miniapp&type=ads').set('X-Forwarded-For', '5.6.7.8');
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);
  });
});
