/**
 * /i/ from a bucket that stops answering: nginx (the real one, rendered from the template) answers a
 * 504 in the images envelope within seconds, not after its server-wide 60 s. Only nginx runs here:
 * the replicas' addresses refuse, and the "bucket" is a TCP server that accepts and never answers.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PROXY_DIR, renderNginxTemplate, upstreamServers } from '../lib/nginx-template';
import { freePort, startNginx, stopProcess } from './platform';
import { realServices } from './real-services';

const describeReal = realServices() ? describe : describe.skip;

describeReal('/i/ from a bucket that hangs, through nginx', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bucket-timeouts-'));
  const sockets = new Set<net.Socket>();
  const hungBucket = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  let baseUrl: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => hungBucket.listen(0, '127.0.0.1', resolve));
    const bucketPort = (hungBucket.address() as net.AddressInfo).port;
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
      IMAGES_BUCKET_URL: `http://127.0.0.1:${bucketPort}/images/platform/public/`,
      PROXY_DIR,
      CLIENT_MAX_BODY_SIZE: '2m',
      SITE_CACHE_DIR: path.join(dir, 'nginx', 'site-cache'),
    });
    nginx = await startNginx(server, path.join(dir, 'nginx'));
    baseUrl = `http://127.0.0.1:${listenPort}`;
  });

  afterAll(async () => {
    if (nginx) await stopProcess(nginx.process, 'SIGTERM');
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => hungBucket.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  test('when an image is asked and the bucket accepts the connection but never answers, then nginx answers 504 in the images envelope after about 5 s', async () => {
    const started = Date.now();
    const res = await fetch(`${baseUrl}/i/2026/11/27/${'a'.repeat(32)}.png`);
    const elapsedMs = Date.now() - started;
    expect([res.status, await res.json()]).toEqual([504, { code: 1, msg: '服务响应超时，请稍后重试' }]);
    expect(sockets.size).toBeGreaterThanOrEqual(1);
    // proxy_read_timeout 5s; the upper bound leaves room for a busy machine, far under the 60 s before.
    expect(elapsedMs).toBeGreaterThanOrEqual(4_500);
    expect(elapsedMs).toBeLessThan(20_000);
  }, 60_000);
});
