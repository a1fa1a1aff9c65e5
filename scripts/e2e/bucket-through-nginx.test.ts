/**
 * /i/ from a bucket, through the real nginx rendered from the template, with only nginx running: the
 * replicas' addresses refuse, and the "bucket" is a loopback server of the test's own.
 * - connections to the bucket are kept and reused, and a kept one the bucket closed costs no view;
 * - a bucket that accepts and never answers gives a 504 in the images envelope within seconds, not
 *   after nginx's server-wide 60 s.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PROXY_DIR, renderNginxTemplate, upstreamServers } from '../lib/nginx-template';
import { freePort, startNginx, stopProcess } from './platform';
import { realServices } from './real-services';

const describeReal = realServices() ? describe : describe.skip;
const KEY = `2026/11/27/${'a'.repeat(32)}.png`;

/** nginx in front of a bucket at bucketUrl; stop() when done. */
async function nginxInFrontOf(bucketUrl: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bucket-through-nginx-'));
  const listenPort = await freePort();
  const nowhere = `127.0.0.1:${await freePort()}`;
  for (const folder of ['public', 'app', 'nginx']) mkdirSync(path.join(dir, folder));
  const server = renderNginxTemplate({
    LISTEN_PORT: String(listenPort),
    IMAGES_UPSTREAM_SERVERS: upstreamServers([nowhere]),
    TOOLS_UPSTREAM_SERVERS: upstreamServers([nowhere]),
    RESOLVER_DIRECTIVE: '# fixed loopback addresses',
    IMAGES_PUBLIC_DIR: path.join(dir, 'public') + '/',
    WEB_APP_DIR: path.join(dir, 'app') + '/',
    IMAGES_BUCKET_URL: bucketUrl,
    PROXY_DIR,
    CLIENT_MAX_BODY_SIZE: '2m',
    SITE_CACHE_DIR: path.join(dir, 'nginx', 'site-cache'),
  });
  const nginx = await startNginx(server, path.join(dir, 'nginx'));
  return {
    baseUrl: `http://127.0.0.1:${listenPort}`,
    async stop() {
      await stopProcess(nginx.process, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeReal('/i/ from a bucket that answers, through nginx', () => {
  const connections = new Set<net.Socket>();
  const asked: { url: string; host: string | undefined; connection: string | undefined }[] = [];
  const bucket = http.createServer((req, res) => {
    asked.push({ url: req.url!, host: req.headers.host, connection: req.headers.connection });
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': '5' }).end('image');
  });
  bucket.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
  });
  let opened = 0;
  bucket.on('connection', () => (opened += 1));
  let front: Awaited<ReturnType<typeof nginxInFrontOf>>;
  let bucketAuthority: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => bucket.listen(0, '127.0.0.1', resolve));
    bucketAuthority = `127.0.0.1:${(bucket.address() as net.AddressInfo).port}`;
    front = await nginxInFrontOf(`http://${bucketAuthority}/images/platform/public/`);
  });

  afterAll(async () => {
    await front?.stop();
    bucket.closeAllConnections();
    await new Promise((resolve) => bucket.close(resolve));
  });

  test('when images are viewed one after another, then nginx asks the bucket for each key over one kept connection, with the bucket\'s own Host', async () => {
    const before = opened;
    asked.length = 0;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${front.baseUrl}/i/${KEY}?response-content-type=text/html`);
      expect([res.status, await res.text()]).toEqual([200, 'image']);
    }
    expect(opened - before).toBe(1);
    expect(asked).toHaveLength(20);
    for (const request of asked) {
      expect(request).toEqual({ url: `/images/platform/public/${KEY}`, host: bucketAuthority, connection: undefined });
    }
  });

  test('when the bucket closes a kept connection, then the next view still gets the image (nginx opens a new one)', async () => {
    expect((await fetch(`${front.baseUrl}/i/${KEY}`)).status).toBe(200);
    expect(connections.size).toBe(1);
    const closing = [...connections].map((socket) => new Promise((resolve) => socket.once('close', resolve)));
    for (const socket of connections) socket.destroy();
    await Promise.all(closing);
    const before = opened;
    const res = await fetch(`${front.baseUrl}/i/${KEY}`);
    expect([res.status, await res.text()]).toEqual([200, 'image']);
    expect(opened - before).toBe(1);
  });
});

describeReal('/i/ from a bucket that hangs, through nginx', () => {
  const sockets = new Set<net.Socket>();
  const hungBucket = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  let front: Awaited<ReturnType<typeof nginxInFrontOf>>;

  beforeAll(async () => {
    await new Promise<void>((resolve) => hungBucket.listen(0, '127.0.0.1', resolve));
    front = await nginxInFrontOf(`http://127.0.0.1:${(hungBucket.address() as net.AddressInfo).port}/images/platform/public/`);
  });

  afterAll(async () => {
    await front?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hungBucket.close(resolve));
  });

  test('when an image is asked and the bucket accepts the connection but never answers, then nginx answers 504 in the images envelope after about 5 s', async () => {
    const started = Date.now();
    const res = await fetch(`${front.baseUrl}/i/${KEY}`);
    const elapsedMs = Date.now() - started;
    expect([res.status, await res.json()]).toEqual([504, { code: 1, msg: '服务响应超时，请稍后重试' }]);
    expect(sockets.size).toBeGreaterThanOrEqual(1);
    // proxy_read_timeout 5s; the upper bound leaves room for a busy machine, far under the 60 s before.
    expect(elapsedMs).toBeGreaterThanOrEqual(4_500);
    expect(elapsedMs).toBeLessThan(20_000);
  }, 60_000);
});
