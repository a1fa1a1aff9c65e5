/**
 * Renders proxy/nginx.conf.template as the e2e tests do and runs `nginx -t` on it.
 * (The compose variant differs only in the `resolve` of its server lines and the
 * resolver, which need nginx >= 1.27.3 and Docker's DNS.)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROXY_DIR, renderNginxTemplate, standaloneNginxConf, upstreamServers } from './lib/nginx-template';

const dir = mkdtempSync(path.join(os.tmpdir(), 'nginx-check-'));
try {
  mkdirSync(path.join(dir, 'public'));
  mkdirSync(path.join(dir, 'app'));
  // Both storage variants: images only on the volume, and images (also) in a bucket.
  for (const [variant, bucketUrl] of [
    ['local', ''],
    ['s3', 'http://127.0.0.1:9000/images/platform/public/'],
  ] as const) {
    const server = renderNginxTemplate({
      LISTEN_PORT: '18080',
      IMAGES_UPSTREAM_SERVERS: upstreamServers(['127.0.0.1:3001', '127.0.0.1:3011']),
      TOOLS_UPSTREAM_SERVERS: upstreamServers(['127.0.0.1:3002', '127.0.0.1:3012']),
      RESOLVER_DIRECTIVE: '# no resolver: fixed loopback addresses',
      IMAGES_PUBLIC_DIR: path.join(dir, 'public') + '/',
      IMAGES_BUCKET_URL: bucketUrl,
      WEB_APP_DIR: path.join(dir, 'app') + '/',
      PROXY_DIR,
      CLIENT_MAX_BODY_SIZE: '64m',
      SITE_CACHE_DIR: path.join(dir, 'site-cache'),
    });
    const conf = path.join(dir, `nginx-${variant}.conf`);
    writeFileSync(conf, standaloneNginxConf(server, dir));
    process.stderr.write(`storage variant ${variant}: `);
    execFileSync('nginx', ['-t', '-e', 'stderr', '-p', dir, '-c', conf], { stdio: 'inherit' });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
