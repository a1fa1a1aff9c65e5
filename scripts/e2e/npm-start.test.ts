/**
 * `npm start` as a newcomer runs it: the real script as a child process, on a
 * fresh data folder; then a restart on the same folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, rawRequest, stopProcess } from './platform';

const ROOT = path.resolve(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  output: () => string;
}

async function startEmbedded(dataDir: string, port: number, started: ChildProcess[]): Promise<Started> {
  // tsx's loader flags, not its CLI wrapper, so that signals reach the script itself.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60000;
  while (!output.includes('Platform ready')) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not get ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, output: () => output };
}

function curlLines(output: string): string[] {
  return output.split('\n').filter((line) => line.startsWith('curl '));
}

describe('npm start (embedded mode as a real process)', () => {
  let dataDir: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('when started on an empty folder and restarted, then it seeds once, prints working curl lines both times, and keeps the data', async () => {
    const port = await freePort();
    const base = `http://localhost:${port}`;
    const first = await startEmbedded(dataDir, port, children);
    const lines = curlLines(first.output());
    // Every operation: 11 image-hosting lines (delete twice: once to restore, once to purge),
    // 14 tool-directory lines (7 operations in each URL style).
    expect(lines.length).toBe(25);
    const token = /X-API-Token: ([^']+)'/.exec(lines.join('\n'))![1]!;
    const apiKey = /X-API-Key: ([^']+)'/.exec(lines.join('\n'))![1]!;
    expect(first.output()).not.toContain('<API_TOKEN>');

    const form = new FormData();
    const photo = readFileSync(path.join(dataDir, 'demo.jpg'));
    form.append('file', new Blob([photo], { type: 'image/jpeg' }), 'demo.jpg');
    const upload = (await (
      await fetch(`${base}/api/image.php?action=upload`, { method: 'POST', body: form, headers: { 'X-API-Token': token } })
    ).json()) as { code: number; data: { url: string } };
    expect(upload.code).toBe(0);
    expect((await fetch(upload.data.url)).status).toBe(200);
    const tools = await fetch(`${base}/api/v1/tools?limit=1`, { headers: { 'X-API-Key': apiKey } });
    expect(tools.status).toBe(200);
    expect(((await tools.json()) as { data: { pagination: { total: number } } }).data.pagination.total).toBe(247);

    expect(await stopProcess(first.child, 'SIGTERM')).toBe(0);
    expect(existsSync(path.join(dataDir, 'demo-credentials.json'))).toBe(true);

    const second = await startEmbedded(dataDir, port, children);
    try {
      expect(curlLines(second.output())).toEqual(lines);
      const list = (await (await fetch(`${base}/api/image.php?action=list`, { headers: { 'X-API-Token': token } })).json()) as {
        data: { total: number };
      };
      expect(list.data.total).toBe(1);
      const stats = (await (await fetch(`${base}/api/index.php?action=stats`, { headers: { 'X-API-Key': apiKey } })).json()) as {
        data: { total_tools: number };
      };
      expect(stats.data.total_tools).toBe(247);

      // What `curl "…&keyword=截图"` sends: raw UTF-8 in the URL, which Node's parser refuses before any
      // route. The answer is still the envelope of the service that owns the path.
      const rawImages = await rawRequest(port, Buffer.from(`GET /api/image.php?action=list&keyword=截图 HTTP/1.1\r\nHost: x\r\nX-API-Token: ${token}\r\n\r\n`));
      expect(rawImages.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(rawImages.body)).toEqual({ code: 1, msg: '请求格式错误' });
      const rawTools = await rawRequest(port, Buffer.from(`GET /api/index.php?action=search&q=截图 HTTP/1.1\r\nHost: x\r\n\r\n`));
      expect(rawTools.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(rawTools.body)).toEqual({ success: false, error: { code: 400, message: '参数错误: URL 含有未编码的字符（中文等须先做 URL 编码）' } });
    } finally {
      expect(await stopProcess(second.child, 'SIGTERM')).toBe(0);
    }
  }, 150000);
});
