import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { PROXY_DIR, renderNginxTemplate, standaloneNginxConf, upstreamServers } from '../lib/nginx-template';
import type { RealServices } from './real-services';

const ROOT = path.resolve(__dirname, '..', '..');

export interface Replica {
  name: string;
  port: number;
  /** The running process (restartReplica replaces it). */
  process: ChildProcess;
  /** What the current process wrote to stdout and stderr. */
  output: string[];
}

export interface Platform {
  baseUrl: string;
  /** nginx's access log so far, one JSON object per line (log_format platform). */
  accessLog(): string[];
  /** Everything nginx wrote to its error log so far (its stderr, as in the container). */
  errorLog(): string;
  images: Replica[];
  tools: Replica[];
  /**
   * Starts the replica again, on its port with its environment (SIGKILL first if it still runs),
   * and resolves once its own /readyz answers 200. nginx is not told: it finds the replica itself.
   */
  restartReplica(replica: Replica): Promise<void>;
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

function spawnReplica(script: string, env: NodeJS.ProcessEnv, port: number): { process: ChildProcess; output: string[] } {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { process: child, output };
}

async function waitForReady(replica: Replica): Promise<void> {
  await waitFor(() => `${replica.name} /readyz\n${replica.output.join('')}`, async () => {
    const res = await fetch(`http://127.0.0.1:${replica.port}/readyz`);
    return res.status === 200;
  });
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
  const images: Replica[] = [];
  const tools: Replica[] = [];
  const launchOf = new Map<Replica, { script: string; env: NodeJS.ProcessEnv }>();
  let nginxMaster: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    // nginx's master stops its workers on SIGTERM; SIGKILL would leave them running, still listening.
    await Promise.all([
      ...(nginxMaster ? [stopProcess(nginxMaster, 'SIGTERM')] : []),
      ...[...images, ...tools].map((replica) => stopProcess(replica.process, 'SIGKILL')),
    ]);
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
    const start = async (name: string, script: string, env: NodeJS.ProcessEnv): Promise<Replica> => {
      const port = await freePort();
      const replica: Replica = { name, port, ...spawnReplica(script, env, port) };
      launchOf.set(replica, { script, env });
      return replica;
    };
    for (let i = 0; i < options.replicas; i++) {
      images.push(await start(`images-${i + 1}`, 'services/images/dist/src/main.js', imagesEnv));
      tools.push(await start(`tools-${i + 1}`, 'services/tools/dist/src/main.js', toolsEnv));
    }
    for (const replica of [...images, ...tools]) await waitForReady(replica);

    const loopback = (replicas: Replica[]) => upstreamServers(replicas.map((r) => `127.0.0.1:${r.port}`));
    const server = renderNginxTemplate({
      LISTEN_PORT: String(nginxPort),
      IMAGES_UPSTREAM_SERVERS: loopback(images),
      TOOLS_UPSTREAM_SERVERS: loopback(tools),
      RESOLVER_DIRECTIVE: '# fixed loopback replicas: nothing to resolve',
      IMAGES_PUBLIC_DIR: path.join(storageDir, 'public') + '/',
      PROXY_DIR,
      CLIENT_MAX_BODY_SIZE: options.clientMaxBodySize,
    });
    const confFile = path.join(nginxDir, 'nginx.conf');
    writeFileSync(confFile, standaloneNginxConf(server, nginxDir));
    // The template logs to /dev/stdout and stderr (as in the nginx image, where the error log is
    // stderr too); here they are files, since nginx cannot open /dev/stdout when it is a socket.
    const accessLogFile = path.join(nginxDir, 'access.log');
    const errorLogFile = path.join(nginxDir, 'error.log');
    const accessLogFd = openSync(accessLogFile, 'a');
    const errorLogFd = openSync(errorLogFile, 'a');
    const nginx = spawn('nginx', ['-e', 'stderr', '-p', nginxDir, '-c', confFile, '-g', 'daemon off;'], {
      stdio: ['ignore', accessLogFd, errorLogFd],
    });
    closeSync(accessLogFd);
    closeSync(errorLogFd);
    nginxMaster = nginx;
    const errorLog = () => readFileSync(errorLogFile, 'utf8');
    await waitFor(() => `nginx\n${errorLog()}`, async () => (await fetch(`${baseUrl}/nginx-health`)).status === 200);

    const restartReplica = async (replica: Replica): Promise<void> => {
      await stopProcess(replica.process, 'SIGKILL');
      const { script, env } = launchOf.get(replica)!;
      Object.assign(replica, spawnReplica(script, env, replica.port));
      await waitForReady(replica);
    };

    return {
      baseUrl,
      accessLog: () => readFileSync(accessLogFile, 'utf8').split('\n').filter(Boolean),
      errorLog,
      images,
      tools,
      restartReplica,
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
