import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { PROXY_DIR, renderNginxTemplate, standaloneNginxConf } from '../lib/nginx-template';
import type { RealServices } from './real-services';

const ROOT = path.resolve(__dirname, '..', '..');

export interface Replica {
  name: string;
  port: number;
  process: ChildProcess;
  output: string[];
}

export interface Platform {
  baseUrl: string;
  /** nginx's access log so far, one JSON object per line (log_format platform). */
  accessLog(): string[];
  images: Replica[];
  tools: Replica[];
  imagesDatabaseUrl: string;
  toolsDatabaseUrl: string;
  storageDir: string;
  redisPrefix: string;
  env: { images: NodeJS.ProcessEnv; tools: NodeJS.ProcessEnv };
  stop(): Promise<void>;
}

export interface PlatformOptions {
  replicas: number;
  clientMaxBodySize: string;
}

export function buildServices(): void {
  execFileSync('npm', ['run', 'build', '-w', 'services/images', '-w', 'services/tools'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function databaseUrlFor(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function waitFor(what: () => string, check: () => Promise<boolean>, timeoutMs = 30000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function startReplica(name: string, script: string, env: NodeJS.ProcessEnv, port: number): Replica {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { name, port, process: child, output };
}

/** Sends raw bytes (as a client that does not percent-encode would) and returns the whole answer. */
export async function rawRequest(port: number, bytes: Buffer): Promise<{ head: string; body: string }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(bytes);
  await closed;
  const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
  return { head: head!, body: body ?? '' };
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/**
 * Starts the built services on loopback, `replicas` of each, on fresh databases of
 * the real Postgres, sharing one Redis key prefix and one storage folder, behind a
 * real nginx rendered from proxy/nginx.conf.template.
 */
export async function startPlatform(real: RealServices, options: PlatformOptions): Promise<Platform> {
  const suffix = randomBytes(4).toString('hex');
  const imagesDb = `e2e_images_${suffix}`;
  const toolsDb = `e2e_tools_${suffix}`;
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'platform-e2e-'));
  const children: ChildProcess[] = [];
  let nginxMaster: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    // nginx's master stops its workers on SIGTERM; SIGKILL would leave them running, still listening.
    await Promise.all(children.map((child) => stopProcess(child, child === nginxMaster ? 'SIGTERM' : 'SIGKILL')));
    await withAdmin(real.databaseUrl, async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS ${imagesDb} WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${toolsDb} WITH (FORCE)`);
    });
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    return await launch();
  } catch (error) {
    await stop();
    throw error;
  }

  async function launch(): Promise<Platform> {
    await withAdmin(real.databaseUrl, async (admin) => {
      await admin.query(`CREATE DATABASE ${imagesDb}`);
      await admin.query(`CREATE DATABASE ${toolsDb}`);
    });
    const storageDir = path.join(workDir, 'images');
    const nginxDir = path.join(workDir, 'nginx');
    mkdirSync(path.join(storageDir, 'public'), { recursive: true });
    mkdirSync(nginxDir);
    const nginxPort = await freePort();
    const baseUrl = `http://127.0.0.1:${nginxPort}`;
    const redisPrefix = `e2e_${suffix}`;

    const imagesEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrlFor(real.databaseUrl, imagesDb),
      STORAGE_DIR: storageDir,
      PUBLIC_BASE_URL: baseUrl,
      THUMB_SIGNING_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '5000',
    };
    const toolsEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrlFor(real.databaseUrl, toolsDb),
      REDIS_URL: real.redisUrl,
      RATE_LIMIT_KEY_PREFIX: redisPrefix,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '5000',
    };

    // All replicas start at once on empty databases: the migrations race, as in
    // `docker compose up --scale`, and knex's migration lock must sort it out.
    const images: Replica[] = [];
    const tools: Replica[] = [];
    for (let i = 0; i < options.replicas; i++) {
      images.push(startReplica(`images-${i + 1}`, 'services/images/dist/src/main.js', imagesEnv, await freePort()));
      tools.push(startReplica(`tools-${i + 1}`, 'services/tools/dist/src/main.js', toolsEnv, await freePort()));
    }
    children.push(...[...images, ...tools].map((r) => r.process));
    for (const replica of [...images, ...tools]) {
      await waitFor(() => `${replica.name} /readyz\n${replica.output.join('')}`, async () => {
        const res = await fetch(`http://127.0.0.1:${replica.port}/readyz`);
        return res.status === 200;
      });
    }

    const server = renderNginxTemplate({
      LISTEN_PORT: String(nginxPort),
      IMAGES_UPSTREAM_SERVERS: images.map((r) => `server 127.0.0.1:${r.port};`).join(' '),
      TOOLS_UPSTREAM_SERVERS: tools.map((r) => `server 127.0.0.1:${r.port};`).join(' '),
      RESOLVER_DIRECTIVE: '# fixed loopback replicas: nothing to resolve',
      IMAGES_PUBLIC_DIR: path.join(storageDir, 'public') + '/',
      PROXY_DIR,
      CLIENT_MAX_BODY_SIZE: options.clientMaxBodySize,
    });
    const confFile = path.join(nginxDir, 'nginx.conf');
    writeFileSync(confFile, standaloneNginxConf(server, nginxDir));
    // The template logs to /dev/stdout (as in the nginx image); here that is a file,
    // since nginx cannot open /dev/stdout when it is a socket.
    const accessLogFile = path.join(nginxDir, 'access.log');
    const accessLogFd = openSync(accessLogFile, 'a');
    const nginx = spawn('nginx', ['-p', nginxDir, '-c', confFile, '-g', 'daemon off;'], {
      stdio: ['ignore', accessLogFd, 'pipe'],
    });
    closeSync(accessLogFd);
    nginxMaster = nginx;
    children.unshift(nginx);
    const nginxErrors: string[] = [];
    nginx.stderr!.on('data', (chunk: Buffer) => nginxErrors.push(chunk.toString()));
    await waitFor(() => `nginx\n${nginxErrors.join('')}`, async () => (await fetch(`${baseUrl}/nginx-health`)).status === 200);

    return {
      baseUrl,
      accessLog: () => readFileSync(accessLogFile, 'utf8').split('\n').filter(Boolean),
      images,
      tools,
      imagesDatabaseUrl: imagesEnv.DATABASE_URL!,
      toolsDatabaseUrl: toolsEnv.DATABASE_URL!,
      storageDir,
      redisPrefix,
      env: { images: imagesEnv, tools: toolsEnv },
      stop,
    };
  }
}

/** Runs an admin CLI of a built service against the platform's database, as an operator would. */
export function runAdmin(service: 'images' | 'tools', env: NodeJS.ProcessEnv, args: string[]): string {
  return execFileSync(process.execPath, [`services/${service}/dist/src/admin/cli.js`, ...args], {
    cwd: ROOT,
    env: { ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
}
