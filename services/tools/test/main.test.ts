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

describe('main process', () => {
  it('when the config is bad, then it prints one config error line and exits 1', async () => {
    const main = startMain({ PORT: 'x' });
    expect(await main.exited).toBe(1);
    expect(main.output()).toBe('config error: PORT must be a non-negative integer, got "x"\n');
  }, 30_000);

  it('when it gets SIGTERM while a request is in flight, then the request completes and it exits 0', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-main-'));
    const port = await freePort();
    const main = startMain({ PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '', LOG_LEVEL: 'info' });
    try {
      const deadline = Date.now() + 30_000;
      while (!main.output().includes('tools service listening')) {
        if (Date.now() > deadline) throw new Error(`did not start: ${main.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
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
      socket.write('Connection: close\r\n\r\n');
      await ended;
      expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(response).toContain('"success":true');
      expect(await main.exited).toBe(0);
      expect(main.output()).toContain('shutdown complete');
    } finally {
      main.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
