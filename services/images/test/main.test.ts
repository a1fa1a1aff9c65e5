import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { migrateToLatest, openDb } from '@platform/kit';
import { rawExchange, serviceProcesses } from '@platform/kit/testing';
import { loadConfig } from '../src/config';
import { fixtureBytes, userAdminFor } from './support/harness';
import { migrationSource } from '../src/db/migration-source';

const { startMain } = serviceProcesses(path.join(__dirname, '..'));

test('when the config is bad, then main prints one config error line and exits 1', async () => {
  const { exit, port } = startMain({ PORT: 'abc' });
  port.catch(() => undefined);
  const result = await exit;
  expect(result.code).toBe(1);
  expect(result.stderr).toBe('config error: PORT must be a non-negative integer\n');
}, 30000);

test('when it is started on a Postgres server without keys (NODE_ENV unset, as a bare node or systemd start does), then main prints one config error line and exits 1', async () => {
  const { exit, port } = startMain({ NODE_ENV: '', THUMB_SIGNING_SECRET: '', TOKEN_ENCRYPTION_KEY: '', DATABASE_URL: 'postgres://images@127.0.0.1:1/images', PORT: '0' });
  port.catch(() => undefined);
  const result = await exit;
  expect(result.code).toBe(1);
  expect(result.stderr).toBe('config error: THUMB_SIGNING_SECRET is required unless DATABASE_URL is pglite and NODE_ENV is unset, development or test: set a random value made by openssl rand -hex 32\n');
}, 30000);

test('when SIGTERM arrives during an upload, then the upload finishes, then the process exits 0', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-main-'));
  const env = { DATABASE_URL: `pglite:${dir}/db`, STORAGE_DIR: `${dir}/files`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', INIT_CWD: '' };
  const db = await openDb(loadConfig(env).database, { migrationSource });
  await migrateToLatest(db);
  const { token } = await userAdminFor(db).createUser({ name: 'shutdown' });
  await db.destroy();
  fs.mkdirSync(`${dir}/files/tmp`, { recursive: true });

  // A shutdown timeout far beyond the test's: the exit can only come from the upload finishing. The
  // upload is received into tmp/ (UPLOAD_MEMORY_BYTES=0), so that its temp file shows it in flight.
  const { child, port, exit, printed } = startMain({ ...env, SHUTDOWN_TIMEOUT_MS: '600000', UPLOAD_MEMORY_BYTES: '0' });
  const shuttingDown = printed(/shutting down/);
  try {
    const listening = await port;
    // multer creates the temp file when the file part starts: then the upload is in flight.
    const inFlight = new Promise<void>((resolve) => {
      const watcher = fs.watch(`${dir}/files/tmp`, () => {
        watcher.close();
        resolve();
      });
    });
    const boundary = 'slowBoundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.webp"\r\nContent-Type: image/webp\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const image = fixtureBytes('photo.webp');
    const req = http.request({
      host: '127.0.0.1',
      port: listening,
      method: 'POST',
      path: '/api/image.php?action=upload',
      headers: { 'X-API-Token': token, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + image.length + tail.length },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    req.write(head);
    req.write(image.subarray(0, 1000));
    await inFlight;
    child.kill('SIGTERM');
    await shuttingDown;
    req.end(Buffer.concat([image.subarray(1000), tail]));

    const answered = await response;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ code: 0, data: { original_name: 'slow.webp', file_size: image.length } });
    expect((await exit).code).toBe(0);
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60000);

test('when the HTTP parser refuses a request (raw UTF-8 in the query, headers over 16 KB), then the answer is still the envelope', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-main-'));
  const { child, port, exit } = startMain({ DATABASE_URL: 'pglite:memory', STORAGE_DIR: `${dir}/files`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', INIT_CWD: '' });
  try {
    const listening = await port;
    // What `curl "http://…/api/image.php?action=list&keyword=截图"` sends.
    const rawUtf8 = await rawExchange(listening, Buffer.from('GET /api/image.php?action=list&keyword=截图 HTTP/1.1\r\nHost: localhost\r\n\r\n', 'utf8'));
    expect(rawUtf8.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(rawUtf8.head).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(rawUtf8.text)).toEqual({ code: 1, msg: '请求格式错误' });

    const hugeHeader = await rawExchange(listening, Buffer.from(`GET /api/image.php?action=list HTTP/1.1\r\nHost: localhost\r\nX-API-Token: ${'t'.repeat(20 * 1024)}\r\n\r\n`));
    expect(hugeHeader.head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(JSON.parse(hugeHeader.text)).toEqual({ code: 1, msg: '请求格式错误' });

    // The same keyword percent-encoded is an ordinary request.
    const encoded = await fetch(`http://127.0.0.1:${listening}/api/image.php?action=list&keyword=${encodeURIComponent('截图')}`);
    expect(await encoded.json()).toEqual({ code: 1, msg: '请先登录' });
  } finally {
    child.kill('SIGKILL');
    await exit;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60000);
