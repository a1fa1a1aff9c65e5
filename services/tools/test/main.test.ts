import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { rawExchange } from '@platform/kit/testing';

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
  // node itself, not the tsx wrapper: a signal to the wrapper's pid would not reach the server.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: serviceRoot, env: { ...process.env, NODE_OPTIONS: '', ...env } });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
    for (const waiter of waiters.filter((w) => stdout.includes(w.text))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** Resolves once stdout shows `text`; fails if the process exits first. */
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (stdout.includes(text)) return resolve();
      waiters.push({ text, resolve });
      void exited.then(() => reject(new Error(`exited before printing "${text}":\n${stdout}${stderr}`)));
    });
  return { child, exited, printed, output: () => stdout, errors: () => stderr };
}

async function waitForListening(main: ReturnType<typeof startMain>): Promise<void> {
  await main.printed('tools service listening');
}

describe('main process', () => {
  it('when the config is bad, then it prints one config error line and exits 1', async () => {
    const main = startMain({ PORT: 'x' });
    expect(await main.exited).toBe(1);
    expect(main.errors()).toBe('config error: PORT must be a non-negative integer, got "x"\n');
    expect(main.output()).toBe('');
  }, 30_000);

  it('when the HTTP parser refuses a request (raw UTF-8 in the query, headers over 16 KB), then the answer is still the error envelope', async () => {
    const port = await freePort();
    const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: 'pglite:memory', REDIS_URL: '', LOG_LEVEL: 'info' });
    try {
      await waitForListening(main);
      const rawUtf8 = await rawExchange(port, Buffer.from('GET /api/index.php?action=search&q=截图 HTTP/1.1\r\nHost: localhost\r\n\r\n', 'utf8'));
      expect(rawUtf8.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(rawUtf8.head).toContain('Content-Type: application/json; charset=utf-8');
      expect(JSON.parse(rawUtf8.text)).toEqual({ success: false, error: { code: 400, message: '参数错误: URL 含有未编码的字符（中文等须先做 URL 编码）' } });

      const hugeHeader = await rawExchange(port, Buffer.from(`GET /api/index.php?action=tools HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${'k'.repeat(20 * 1024)}\r\n\r\n`));
      expect(hugeHeader.head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
      expect(JSON.parse(hugeHeader.text)).toEqual({ success: false, error: { code: 431, message: '参数错误: 请求头过大' } });

      // The same keyword percent-encoded is served.
      const encoded = await fetch(`http://127.0.0.1:${port}/api/index.php?action=search&q=${encodeURIComponent('截图')}`);
      expect(encoded.status).toBe(200);
    } finally {
      main.child.kill('SIGKILL');
      await main.exited;
    }
  }, 60_000);

  it('when it gets SIGTERM, then for SHUTDOWN_DRAIN_MS it goes on answering with /readyz 503 draining and Connection: close on every answer, then closes its port and exits 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-main-'));
    const port = await freePort();
    // A window far longer than the checks below take, even on a busy machine; the exit ends it.
    const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '8000' });
    try {
      await waitForListening(main);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      main.child.kill('SIGTERM');
      await main.printed('draining');

      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'draining' });
      // A client asking to keep the connection is answered, and told it closes (a proxy then opens no more on it).
      const answer = await rawExchange(port, Buffer.from('GET /api/index.php?action=search&q=x HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n'));
      expect(answer.head).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(answer.head).toMatch(/\r\nConnection: close\r\n/i);

      await main.printed('no longer accepting connections');
      const refused = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve('connected')));
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
      expect(await main.exited).toBe(0);
      expect(main.output()).toContain('shutdown complete');
    } finally {
      main.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('when it gets SIGTERM with a client holding a keep-alive connection, then it answers the request on it, closes the connection itself and exits 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-main-'));
    const port = await freePort();
    // A shutdown timeout far beyond the test's: an exit can only come from the server closing the connection itself.
    const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '600000' });
    try {
      await waitForListening(main);
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let response = '';
      const answered = new Promise<void>((resolve) => {
        socket.on('data', (chunk) => {
          response += String(chunk);
          if (response.includes('"success":true')) resolve();
        });
      });
      const closedByServer = new Promise<boolean>((resolve) => socket.on('close', () => resolve(socket.readableEnded)));
      // No `Connection: close`: the client keeps the socket open, as nginx's upstream keep-alive does.
      socket.write('GET /api/index.php?action=search&q=x HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await answered;
      expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(response).toMatch(/Connection: keep-alive/i);
      main.child.kill('SIGTERM');
      expect(await closedByServer).toBe(true);
      expect(await main.exited).toBe(0);
      expect(main.output()).toContain('shutting down');
      expect(main.output()).toContain('shutdown complete');
    } finally {
      main.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
