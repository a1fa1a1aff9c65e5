/**
 * Embedded mode (`npm start`): both apps in one process behind the Node front
 * door, on PGlite and the in-memory limiter, with the same v1 rewrite file as nginx.
 */
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
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
import { WEB_APP_BUILD_DIR } from '../lib/web-app';
import { expectWebAppAnswers } from './web-app-answers';

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
    // Search results fresh on every request (READ_CACHE_TTL_MS would keep one for a second): a test below reads a visit count through search.
    const toolsConfig = loadToolsConfig({ DATABASE_URL: 'pglite:memory', LOG_LEVEL: 'silent', READ_CACHE_TTL_MS: '0' });
    const images = await openImagesService(imagesConfig);
    const tools = await openToolsService(toolsConfig);
    closeAll = async () => {
      await images.close();
      await tools.close();
    };
    token = (await ensureDemoUser(images.services.userAdmin))!;
    const demo = await ensureDemoData(tools.db);
    await tools.refreshSearch();
    apiKey = demo.apiKey!;
    expect(demo.importedTools).toBeGreaterThanOrEqual(150);
    front = createFrontDoor({
      imagesApp: images.app,
      toolsApp: tools.app,
      imagesPublicDir: path.join(imagesConfig.storageDir, 'public'),
      v1Rules: loadV1Rewrites(),
      webAppDir: WEB_APP_BUILD_DIR,
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

  test('when /app/ is asked, then the web app is served as nginx serves it: the page for every app path, hashed assets cached for a year, the CSP everywhere', async () => {
    // The e2e project's globalSetup built it (scripts/e2e/global-setup.ts), as npm start does.
    const server = http.createServer(front);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await expectWebAppAnswers(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('when an unknown API path is asked, then the answer is 404 in the tools envelope, as through nginx', async () => {
    for (const url of ['/api/v1/nope', '/api/nothing', '/API/index.php', '/api/v1/tools/a/b']) {
      const res = await request(front).get(url);
      expect([url, res.status, res.body]).toEqual([url, 404, { success: false, error: { code: 404, message: '资源不存在' } }]);
    }
    expect((await request(front).get('/nginx-health')).body).toEqual({ status: 'ok' });
  });

  test('when a visitor opens the site at /, then the tool directory\'s website answers every other path, as through nginx', async () => {
    const home = await request(front).get('/').set('Host', 'localhost:8080');
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(home.headers['content-security-policy']).toContain("script-src 'self'");
    expect(home.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    expect(home.text).toContain('<link rel="canonical" href="http://localhost:8080/">');
    expect(home.text).toContain('href="/category/developer"');
    const css = /<link rel="stylesheet" href="([^"]+)">/.exec(home.text)![1]!;
    expect((await request(front).get(css)).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await request(front).get('/en/tool/vscode')).text).toContain('<html lang="en">');
    expect((await request(front).get('/search?q=jietu')).text).toContain('href="/tool/snipaste"');
    expect((await request(front).get('/sitemap.xml')).text).toContain('/sitemap-tools-1.xml</loc>');
    expect((await request(front).get('/robots.txt')).text).toContain('Disallow: /go/');
    const missing = await request(front).get('/nothing');
    expect([missing.status, missing.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);

    // The tool's count as search reads it (read cache off above), before and after one click on its link out.
    const visitsOfVscode = async () => {
      const found = await request(front).get('/api/v1/tools/search?q=vscode&limit=1');
      expect(found.body.data.data[0]).toMatchObject({ slug: 'vscode' });
      return found.body.data.data[0].visits as number;
    };
    const before = await visitsOfVscode();
    const go = await request(front).get('/go/vscode');
    expect([go.status, go.headers.location, go.headers['cache-control']]).toEqual([302, 'https://code.visualstudio.com/', 'no-store']);
    expect(await visitsOfVscode()).toBe(before + 1);
  });

  test('when this machine asks for /healthz, /readyz and /metrics, then the platform answers with both services\' readiness and metrics', async () => {
    expect((await request(front).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(front).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', images: { status: 'ok', database: 'ok', bucket: 'not_configured' }, tools: { status: 'ok', database: 'ok', redis: 'not_configured', limiter: 'memory' } });
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
      for (const probe of ['/healthz', '/readyz', '/metrics', '/Metrics', '/healthz/']) {
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

  test("when an upload's deletion link is followed, then the front door hands it to images: a page that asks, and a POST that deletes", async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#808080' } }).png().toBuffer();
    const up = await request(front).post('/api/image.php?action=upload').set('X-API-Token', token).attach('file', png, 'ask.png');
    const link = new URL(up.body.data.links.delete);
    const page = await request(front).get(link.pathname + link.search);
    expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page.text).toContain('ask.png');
    expect((await request(front).post(link.pathname + link.search)).status).toBe(200);
    expect((await request(front).get(new URL(up.body.data.url).pathname)).status).toBe(404);
  });

  test('when a client sends its own X-Forwarded-For, then it is replaced by the socket address', async () => {
    // The anonymous limit is per client IP: a forged header must not buy a fresh allowance.
    const a = await request(front).get('/api/index.php?action=miniapp&type=ads').set('X-Forwarded-For', '1.2.3.4');
    const b = await request(front).get('/api/index.php?action=miniapp&type=ads').set('X-Forwarded-For', '5.6.7.8');
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);
  });
});

/** s3rver (a devDependency): without it the S3 test is skipped, and fails under REQUIRE_REAL_SERVICES=1. */
function hasS3rver(): boolean {
  try {
    require.resolve('s3rver');
    return true;
  } catch {
    return false;
  }
}
const describeWithS3 = hasS3rver() || process.env.REQUIRE_REAL_SERVICES === '1' ? describe : describe.skip;

/** Embedded mode with images in a bucket (STORAGE_BACKEND=s3 passes through `npm start` to the service). */
describeWithS3('embedded front door with images in S3 (s3rver on loopback)', () => {
  let dir: string;
  let front: express.Express;
  let closeAll: () => Promise<void>;
  let token: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-s3-'));
    const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<{ port: number }>; close(): Promise<void> };
    const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(dir, 's3') });
    const { port } = await s3.run();
    const endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    await client.send(new CreateBucketCommand({ Bucket: 'embedded' }));
    client.destroy();
    const images = await openImagesService(
      loadImagesConfig({
        DATABASE_URL: 'pglite:memory',
        STORAGE_DIR: path.join(dir, 'images'),
        PUBLIC_BASE_URL: 'http://localhost:8080',
        LOG_LEVEL: 'silent',
        STORAGE_BACKEND: 's3',
        S3_ENDPOINT: endpoint,
        S3_BUCKET: 'embedded',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
      }),
    );
    closeAll = async () => {
      await images.close();
      await s3.close();
    };
    token = (await ensureDemoUser(images.services.userAdmin))!;
    front = createFrontDoor({
      imagesApp: images.app,
      toolsApp: images.app,
      imagesPublicDir: path.join(dir, 'images', 'public'),
      openBucketImage: (storageKey) => images.storage.storeFor('s3').open('public', storageKey),
      webAppDir: WEB_APP_BUILD_DIR,
      v1Rules: loadV1Rewrites(),
      probes: { readiness: async () => ({ status: 'ok' }), metrics: async () => '' },
    });
  }, 120000);

  afterAll(async () => {
    await closeAll?.();
    rmSync(dir, { recursive: true, force: true });
  });

  test('when an image is stored in the bucket, then /i/ serves it with the same headers as from disk, not while binned, and again once restored', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c03' } }).png().toBuffer();
    const uploaded = await request(front).post('/api/image.php?action=upload').set('X-API-Token', token).attach('file', png, 'red.png');
    expect(uploaded.body.code).toBe(0);
    const urlPath = new URL(uploaded.body.data.url).pathname;
    const served = await request(front).get(urlPath).buffer(true);
    expect([served.status, served.headers['content-type'], served.headers['x-content-type-options'], served.headers['cache-control']]).toEqual([
      200,
      'image/png',
      'nosniff',
      'public, max-age=31536000, immutable',
    ]);
    expect(Buffer.compare(served.body as Buffer, png)).toBe(0);
    expect((await request(front).get(urlPath).set('If-None-Match', served.headers.etag!)).status).toBe(304);

    await request(front).post('/api/image.php?action=delete').set('X-API-Token', token).send({ id: uploaded.body.data.id }).expect(200);
    const gone = await request(front).get(urlPath);
    expect([gone.status, gone.body]).toEqual([404, { code: 1, msg: '图片不存在' }]);
    await request(front).post('/api/image.php?action=restore').set('X-API-Token', token).send({ id: uploaded.body.data.id }).expect(200);
    expect((await request(front).get(urlPath)).status).toBe(200);
    expect((await request(front).get('/i/2026/01/01/not-a-key.png')).status).toBe(404);
  });
});
