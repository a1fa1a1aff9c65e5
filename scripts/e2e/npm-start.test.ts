/**
 * `npm start` as a newcomer runs it: the real script as a child process, on a
 * fresh data folder; then a restart on the same folder.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { describeWithRealServer, rawExchange } from '@platform/kit/testing';
import { loadConfig as loadImagesConfig } from '../../services/images/src/config';
import { createLinkSigner } from '../../services/images/src/images/link-signer';
import { freePort, stopProcess } from './platform';

const UPLOADER = path.resolve(__dirname, '..', '..', 'packages', 'uploader', 'bin', 'upload.mjs');

const ROOT = path.resolve(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** The start script as `npm start` runs it (tsx's loader flags, not its CLI wrapper, so that signals reach the script itself). */
function spawnStart(env: Record<string, string>, started: ChildProcess[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output, stderr: () => stderr };
}

async function startEmbedded(dataDir: string, port: number, started: ChildProcess[]): Promise<Started> {
  const { child, exited, output } = spawnStart({ PORT: String(port), DATA_DIR: dataDir }, started);
  await new Promise<void>((resolve, reject) => {
    const check = () => output().includes('Platform ready') && resolve();
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`npm start exited ${code}:\n${output()}`)));
  });
  return { child, output };
}

/** `npm run admin -- …` with the platform's environment. */
function admin(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Everything under `dir` (and `dir` itself) that group or others may read, write or enter, with its mode. */
function openToOthers(dir: string): string[] {
  const entries = [dir, ...(readdirSync(dir, { recursive: true }) as string[]).map((entry) => path.join(dir, entry))];
  return entries.flatMap((entry) => {
    try {
      const stat = lstatSync(entry);
      return !stat.isSymbolicLink() && stat.mode & 0o077 ? [`${(stat.mode & 0o777).toString(8)} ${path.relative(dir, entry) || '.'}`] : [];
    } catch {
      return []; // a database's temporary file, gone meanwhile
    }
  });
}

/** Every file and folder under `dir` opened to everyone, as a data folder made with a 000 umask (or PGlite's own modes) was. */
function openToEveryone(dir: string): void {
  for (const entry of [dir, ...(readdirSync(dir, { recursive: true }) as string[]).map((name) => path.join(dir, name))]) {
    const stat = lstatSync(entry);
    if (!stat.isSymbolicLink()) chmodSync(entry, stat.isDirectory() ? 0o777 : 0o666);
  }
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
    expect(first.output()).toContain(`Tool directory website: ${base}/ (English: ${base}/en/)`);
    const site = await fetch(`${base}/`);
    expect([site.status, site.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await site.text()).toContain(`<link rel="canonical" href="${base}/">`);

    const form = new FormData();
    const photo = readFileSync(path.join(dataDir, 'demo.jpg'));
    form.append('file', new Blob([photo], { type: 'image/jpeg' }), 'demo.jpg');
    const upload = (await (
      await fetch(`${base}/api/image.php?action=upload`, { method: 'POST', body: form, headers: { 'X-API-Token': token } })
    ).json()) as { code: number; data: { id: number; url: string; thumb_url: string; links: { delete: string } } };
    expect(upload.code).toBe(0);
    expect((await fetch(upload.data.url)).status).toBe(200);
    expect((await fetch(upload.data.thumb_url)).status).toBe(200);
    expect((await fetch(upload.data.links.delete)).status).toBe(200);

    // The install signs with keys of its own, made on this first start and readable by its owner only:
    // a link signed with the service's public development key is refused like any wrong signature.
    const secretsFile = path.join(dataDir, 'secrets.json');
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(secrets).sort()).toEqual(['THUMB_SIGNING_SECRET', 'TOKEN_ENCRYPTION_KEY']);
    const developmentKeys = loadImagesConfig({});
    expect(secrets.THUMB_SIGNING_SECRET).not.toBe(developmentKeys.thumbSigningSecret);
    expect(Buffer.from(secrets.TOKEN_ENCRYPTION_KEY!, 'hex').equals(developmentKeys.tokenEncryptionKey)).toBe(false);
    const forged = createLinkSigner(developmentKeys.thumbSigningSecret);
    for (const link of [`${base}/api/thumb.php?id=${upload.data.id}&sig=${forged.thumb.sign(upload.data.id)}`, `${base}/api/delete.php?id=${upload.data.id}&sig=${forged.deletion.sign(upload.data.id, null)}`]) {
      expect({ link, status: (await fetch(link)).status }).toEqual({ link, status: 404 });
    }
    const tools = await fetch(`${base}/api/v1/tools?limit=1`, { headers: { 'X-API-Key': apiKey } });
    expect(tools.status).toBe(200);
    expect(((await tools.json()) as { data: { pagination: { total: number } } }).data.pagination.total).toBe(247);

    // The web app: its address printed, served, and the demo user signs in to it with the printed password.
    const webAppLine = /^Image web app: (\S+)  \(sign in as demo, password (\S+)\)$/m.exec(first.output());
    expect(webAppLine?.[1]).toBe(`${base}/app/`);
    const appPage = await fetch(webAppLine![1]!);
    expect(appPage.status).toBe(200);
    expect(await appPage.text()).toContain('<div id="app"></div>');
    const signIn = (await (
      await fetch(`${base}/api/image.php?action=login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: webAppLine![2]! }) })
    ).json()) as { code: number; data: { user: { is_admin: boolean } } };
    expect(signIn).toMatchObject({ code: 0, data: { user: { is_admin: true } } });

    // The command-line uploader (packages/uploader), as Typora and Obsidian run it, with the printed
    // token: one URL per line that serves the image; a refusal exits 1 with the service's message.
    const uploader = (files: string[]) =>
      new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [UPLOADER, ...files], { env: { PATH: process.env.PATH, HOME: dataDir, IMAGES_SERVER: base, IMAGES_TOKEN: token }, encoding: 'utf8' }, (error, stdout, stderr) =>
          resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    // A picture of its own: the demo's bytes with a JPEG comment after its start (the demo's own bytes
    // would be answered with the demo image: the service deduplicates a user's repeat uploads).
    const demo = readFileSync(path.join(dataDir, 'demo.jpg'));
    const comment = Buffer.from('sent by the command-line uploader', 'latin1');
    const segment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 2 + comment.length]), comment]);
    writeFileSync(path.join(dataDir, 'photo.jpg'), Buffer.concat([demo.subarray(0, 2), segment, demo.subarray(2)]));
    const uploaded = await uploader([path.join(dataDir, 'photo.jpg')]);
    expect([uploaded.status, uploaded.stderr]).toEqual([0, '']);
    expect(uploaded.stdout).toMatch(new RegExp(`^${base}/i/\\d{4}/\\d{2}/\\d{2}/[0-9a-f]{32}\\.jpg\\n$`));
    expect((await fetch(uploaded.stdout.trim())).status).toBe(200);
    writeFileSync(path.join(dataDir, 'notes.txt'), 'not an image');
    const refused = await uploader([path.join(dataDir, 'notes.txt')]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('不支持的文件类型');

    expect(await stopProcess(first.child, 'SIGTERM')).toBe(0);
    expect(existsSync(path.join(dataDir, 'demo-credentials.json'))).toBe(true);

    const second = await startEmbedded(dataDir, port, children);
    try {
      expect(curlLines(second.output())).toEqual(lines);
      // The password was printed once, when it was made; a restart says where it is kept.
      expect(second.output()).toContain(`Image web app: ${base}/app/  (sign in as demo, with the password in ${path.join(dataDir, 'demo-credentials.json')})\n`);
      expect(second.output()).not.toContain(webAppLine![2]);
      expect(JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'))).toMatchObject({ password: webAppLine![2] });
      const list = (await (await fetch(`${base}/api/image.php?action=list`, { headers: { 'X-API-Token': token } })).json()) as {
        data: { total: number };
      };
      // The demo upload and the uploader's.
      expect(list.data.total).toBe(2);
      // The same keys after a restart: the links handed out before still work.
      expect((await fetch(upload.data.thumb_url)).status).toBe(200);
      expect((await fetch(upload.data.links.delete)).status).toBe(200);
      const stats = (await (await fetch(`${base}/api/index.php?action=stats`, { headers: { 'X-API-Key': apiKey } })).json()) as {
        data: { total_tools: number };
      };
      expect(stats.data.total_tools).toBe(247);

      // What `curl "…&keyword=截图"` sends: raw UTF-8 in the URL, which Node's parser refuses before any
      // route. The answer is still the envelope of the service that owns the path.
      const rawImages = await rawExchange(port, Buffer.from(`GET /api/image.php?action=list&keyword=截图 HTTP/1.1\r\nHost: x\r\nX-API-Token: ${token}\r\n\r\n`));
      expect(rawImages.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(rawImages.text)).toEqual({ code: 1, msg: '请求格式错误' });
      const rawTools = await rawExchange(port, Buffer.from(`GET /api/index.php?action=search&q=截图 HTTP/1.1\r\nHost: x\r\n\r\n`));
      expect(rawTools.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(rawTools.text)).toEqual({ success: false, error: { code: 400, message: '参数错误: URL 含有未编码的字符（中文等须先做 URL 编码）' } });
    } finally {
      expect(await stopProcess(second.child, 'SIGTERM')).toBe(0);
    }
  }, 150000);

  test('when npm start runs, then nothing under the data folder is open to other users (databases and their WAL, also what PGlite writes later, stored images, keys, sockets), and a data folder left open by an install before is closed on its next start', async () => {
    const ownDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-modes-'));
    chmodSync(ownDir, 0o755);
    const port = await freePort();
    const upload = async (token: string) => {
      const form = new FormData();
      form.append('file', new Blob([readFileSync(path.join(ownDir, 'demo.jpg'))], { type: 'image/jpeg' }), 'demo.jpg');
      const answer = (await (await fetch(`http://127.0.0.1:${port}/api/image.php?action=upload`, { method: 'POST', body: form, headers: { 'X-API-Token': token } })).json()) as { code: number };
      expect(answer.code).toBe(0);
    };
    const first = await startEmbedded(ownDir, port, children);
    const token = /X-API-Token: ([^']+)'/.exec(curlLines(first.output()).join('\n'))![1]!;
    try {
      // An upload writes to the WAL, the stored image and its thumbnail after the start.
      await upload(token);
      expect(readdirSync(path.join(ownDir, 'images-db', 'pg_wal')).length).toBeGreaterThan(0);
      expect(readdirSync(path.join(ownDir, 'images', 'public'), { recursive: true }).length).toBeGreaterThan(0);
      expect(readdirSync(ownDir).filter((name) => name.endsWith('.admin.sock')).sort()).toEqual(['images-db.admin.sock', 'tools-db.admin.sock']);
      expect(openToOthers(ownDir)).toEqual([]);
    } finally {
      expect(await stopProcess(first.child, 'SIGTERM')).toBe(0);
    }
    expect(openToOthers(ownDir)).toEqual([]);

    openToEveryone(ownDir);
    expect(openToOthers(ownDir).length).toBeGreaterThan(1000);
    const second = await startEmbedded(ownDir, port, children);
    try {
      await upload(token);
      expect(openToOthers(ownDir)).toEqual([]);
    } finally {
      expect(await stopProcess(second.child, 'SIGTERM')).toBe(0);
    }
    expect(openToOthers(ownDir)).toEqual([]);
    rmSync(ownDir, { recursive: true, force: true });
  }, 150000);

  test('when a variable is bad, then npm start prints one config error line naming it and exits 1', async () => {
    for (const [env, line] of [
      [{ PORT: 'abc' }, 'config error: PORT must be a port number (0-65535)'],
      [{ PORT: '70000' }, 'config error: PORT must be a port number (0-65535)'],
      [{ TIME_ZONE: 'Mars/Olympus' }, 'config error: TIME_ZONE must be an IANA time zone such as Asia/Shanghai'],
      [{ DEFAULT_RATE_LIMIT_PER_HOUR: '0' }, 'config error: DEFAULT_RATE_LIMIT_PER_HOUR must be a positive integer, got "0"'],
    ] as const) {
      const started = spawnStart({ DATA_DIR: path.join(dataDir, 'never'), ...env }, children);
      expect(await started.exited).toBe(1);
      expect(started.stderr()).toBe(`${line}\n`);
    }
    expect(existsSync(path.join(dataDir, 'never'))).toBe(false);
  }, 60000);

  test('when the keys file is damaged, then npm start says which file and what to do, exits 1 and leaves it as it was', async () => {
    const damagedDir = path.join(dataDir, 'damaged');
    mkdirSync(damagedDir);
    const file = path.join(damagedDir, 'secrets.json');
    writeFileSync(file, '{"THUMB_SIGNING_SECRET": "short"}\n', { mode: 0o600 });
    const started = spawnStart({ PORT: String(await freePort()), DATA_DIR: damagedDir }, children);
    expect(await started.exited).toBe(1);
    expect(started.stderr()).toBe(
      `start failed: ${file} is damaged (it must hold THUMB_SIGNING_SECRET and TOKEN_ENCRYPTION_KEY); restore it, or remove it to make new keys (links handed out before then stop working)\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"THUMB_SIGNING_SECRET": "short"}\n');
    expect(readdirSync(damagedDir)).toEqual(['secrets.json']);
  }, 60000);

  test('when the port is taken, then npm start says so and exits 1 before touching the data folder', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const fresh = path.join(dataDir, 'fresh');
      const started = spawnStart({ PORT: String(port), DATA_DIR: fresh }, children);
      expect(await started.exited).toBe(1);
      expect(started.stderr()).toBe(`start failed: port ${port} on 127.0.0.1 is already in use (set PORT to another port)\n`);
      expect(existsSync(fresh)).toBe(false);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 60000);

  test('when the platform runs on a DATA_DIR, then npm run admin with the same DATA_DIR works on that data through it, also after it stopped; this machine can probe and scrape it', async () => {
    const ownDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-admin-'));
    const port = await freePort();
    const running = await startEmbedded(ownDir, port, children);
    try {
      const listed = await admin(['images', 'list-users'], { DATA_DIR: ownDir, PORT: String(port) });
      expect(listed.code).toBe(0);
      expect(listed.stderr).toBe(`database: embedded PGlite at ${ownDir}/images-db, through the running process ${running.child.pid}\n`);
      expect(listed.stdout.split('\n')[1]).toMatch(/^1\tdemo\tdefault\t/);
      const created = await admin(['tools', 'key:create', '--name', 'partner'], { DATA_DIR: ownDir, PORT: String(port) });
      expect(created.code).toBe(0);
      const key = /key: (tk_\S+)/.exec(created.stdout)![1]!;
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/stats`, { headers: { 'X-API-Key': key } })).status).toBe(200);

      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toMatchObject({ status: 'ok', images: { status: 'ok' }, tools: { status: 'ok' } });
      expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toMatch(/tools_http_requests_total\{route="stats",method="GET",status="200"\} 1/);
    } finally {
      expect(await stopProcess(running.child, 'SIGTERM')).toBe(0);
    }
    const stopped = await admin(['tools', 'key:list'], { DATA_DIR: ownDir });
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toBe(`database: embedded PGlite at ${ownDir}/tools-db\n`);
    expect(stopped.stdout).toContain('\tpartner\t');
    // A token the CLI seals on the stopped platform, with the install's own key, is the one the account
    // area shows once the platform runs again.
    const reset = await admin(['images', 'reset-token', 'demo'], { DATA_DIR: ownDir });
    expect(reset.code).toBe(0);
    const newToken = /: (\S+)\n$/.exec(reset.stdout)![1]!;
    const again = await startEmbedded(ownDir, port, children);
    try {
      const { password } = JSON.parse(readFileSync(path.join(ownDir, 'demo-credentials.json'), 'utf8')) as { password: string };
      const login = (await (
        await fetch(`http://127.0.0.1:${port}/api/image.php?action=login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password }) })
      ).json()) as { data: { token: string } };
      const shown = (await (await fetch(`http://127.0.0.1:${port}/api/image.php?action=token`, { headers: { 'X-API-Token': login.data.token } })).json()) as {
        code: number;
        data: { token: string | null };
      };
      expect(shown).toMatchObject({ code: 0, data: { token: newToken } });
    } finally {
      expect(await stopProcess(again.child, 'SIGTERM')).toBe(0);
    }
    // Another DATA_DIR is another platform: nothing there, and nothing created.
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'npm-start-none-'));
    const missing = await admin(['images', 'list-users'], { DATA_DIR: elsewhere });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`error: no database at ${elsewhere}/images-db`);
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(elsewhere, { recursive: true, force: true });
    rmSync(ownDir, { recursive: true, force: true });
  }, 150000);
});

describeWithRealServer('TEST_DATABASE_URL', 'npm start on a Postgres server (real Postgres)', () => {
  const children: ChildProcess[] = [];
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
  });

  test('when IMAGES_DATABASE_URL names a Postgres server and no keys are set, then npm start runs the images service there on the install\'s own keys, which npm run admin uses too', async () => {
    const name = `npm_start_${randomBytes(4).toString('hex')}`;
    const server = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await server.connect();
    await server.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-pg-'));
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), IMAGES_DATABASE_URL: url.toString(), THUMB_SIGNING_SECRET: '', TOKEN_ENCRYPTION_KEY: '' };
    try {
      const started = spawnStart(env, children);
      await new Promise<void>((resolve, reject) => {
        started.child.stdout!.on('data', () => started.output().includes('Platform ready') && resolve());
        void started.exited.then((code) => reject(new Error(`npm start exited ${code}:\n${started.output()}`)));
      });
      const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>;
      expect(Object.keys(secrets).sort()).toEqual(['THUMB_SIGNING_SECRET', 'TOKEN_ENCRYPTION_KEY']);
      const created = await admin(['images', 'create-user', 'pg-alice'], env);
      expect(created).toMatchObject({ code: 0, stderr: expect.stringContaining('database: Postgres at ') });
      const token = /: ([\w-]{43})$/m.exec(created.stdout)![1]!;
      const profile = await fetch(`http://127.0.0.1:${env.PORT}/api/image.php?action=profile`, { headers: { 'X-API-Token': token } });
      expect(await profile.json()).toMatchObject({ code: 0, data: { username: 'pg-alice' } });
      expect(await stopProcess(started.child, 'SIGTERM')).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.end();
    }
  }, 150000);
});
