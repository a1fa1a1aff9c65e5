import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const serviceRoot = path.resolve(__dirname, '..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: serviceRoot, env: { ...process.env, ...env } });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => stdout };
}

/** Sends raw bytes (as a client that does not percent-encode would) and returns the whole answer. */
async function rawRequest(port: number, bytes: Buffer): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let response = '';
  socket.on('data', (chunk) => (response += String(chunk)));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(bytes);
  await closed;
  return response;
}

async function waitForListening(main: ReturnType<typeof startMain>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!main.output().includes('tools service listening')) {
    if (Date.now() > deadline) throw new Error(`did not start: ${main.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('main process', () => {
  it('when the config is bad, then it prints one config error line and exits 1', async () => {
    const main = startMain({ PORT: 'x' });
    expect(await main.exited).toBe(1);
    expect(main.output()).toBe('config error: PORT must be a non-negative integer, got "x"\n');
  }, 30_000);

  it('when the HTTP parser refuses a request (raw UTF-8 in the query, headers over 16 KB), then the answer is still the error envelope', async () => {
    const port = await freePort();
    const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: 'pglite:memory', REDIS_URL: '', LOG_LEVEL: 'info' });
    try {
      await waitForListening(main);
      const rawUtf8 = await rawRequest(port, Buffer.from('GET /api/index.php?action=search&q=截图 HTTP/1.1\r\nHost: localhost\r\n\r\n', 'utf8'));
      const [head, body] = rawUtf8.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(head).toContain('Content-Type: application/json; charset=utf-8');
      expect(JSON.parse(body!)).toEqual({ success: false, error: { code: 400, message: '参数错误: URL 含有未编码的字符（中文等须先做 URL 编码）' } });

      const hugeHeader = await rawRequest(port, Buffer.from(`GET /api/index.php?action=tools HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${'k'.repeat(20 * 1024)}\r\n\r\n`));
      expect(hugeHeader).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
      expect(JSON.parse(hugeHeader.split('\r\n\r\n')[1]!)).toEqual({ success: false, error: { code: 431, message: '参数错误: 请求头过大' } });

      // The same keyword percent-encoded is served.
      const encoded = await fetch(`http://127.0.0.1:${port}/api/index.php?action=search&q=${encodeURIComponent('截图')}`);
      expect(encoded.status).toBe(200);
    } finally {
      main.child.kill('SIGKILL');
      await main.exited;
    }
  }, 60_000);

  it('when it gets SIGTERM while a keep-alive request is in flight, then the request completes and it exits 0 without waiting out the keep-alive timeout', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-main-'));
    const port = await freePort();
    const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '', LOG_LEVEL: 'info' });
    try {
      await waitForListening(main);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok' });
      // A request whose headers are half sent when SIGTERM arrives is in flight: it must still be answered.
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let response = '';
      socket.on('data', (chunk) => (response += String(chunk)));
      const ended = new Promise((resolve) => socket.on('close', resolve));
      socket.write('GET /api/index.php?action=search&q=x HTTP/1.1\r\nHost: localhost\r\n');
      await new Promise((resolve) => setTimeout(resolve, 200));
      main.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // No `Connection: close`: the client would keep the socket open; the server's keep-alive timeout is 5 s.
      socket.write('\r\n');
      const headersDone = Date.now();
      await ended;
      expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(response).toContain('"success":true');
      expect(await main.exited).toBe(0);
      expect(Date.now() - headersDone).toBeLessThan(3_000);
      expect(main.output()).toContain('shutdown complete');
    } finally {
      main.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
