import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { PROXY_DIR, renderNginxTemplate, standaloneNginxConf, upstreamServers } from '../../scripts/lib/nginx-template';
import type { Lifecycle } from './lifecycle';
import { processTree, type ProcessGroup } from './proc';

export const ROOT = path.resolve(__dirname, '..', '..');
const execFileAsync = promisify(execFile);

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

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, stop?: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || stop?.()) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The last lines of a log, for an error message (the work folder is removed at the end). */
function logTail(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function waitForHttp(url: string, child: ChildProcess, what: string, logFile: string): Promise<void> {
  let exited = false;
  await waitFor(`${what} (${url})`, async () => {
    exited = child.exitCode !== null || child.signalCode !== null;
    if (exited) return false;
    return (await fetch(url)).status === 200;
  }, 60_000, () => exited).catch((error: Error) => {
    throw new Error(`${exited ? `${what} exited (${child.exitCode ?? child.signalCode})` : error.message}; its log ends:\n${logTail(logFile)}`);
  });
}

/** All processes of a child started in its own group: nginx master and workers, tsx and its node. */
export function treeGroup(name: string, child: () => ChildProcess | undefined): ProcessGroup {
  return {
    name,
    pids: async () => {
      const pid = child()?.pid;
      return pid === undefined ? [] : processTree(pid);
    },
    leader: () => child()?.pid,
  };
}

export interface PostgresAdmin {
  client: Client;
  adminUrl: string;
  createDatabase(prefix: string): Promise<string>;
  /** Backends serving a database (the bench's own admin connection is on another one). */
  backendGroup(name: string, databaseUrl: string): ProcessGroup;
}

export async function connectPostgres(lifecycle: Lifecycle, adminUrl: string, suffix: string): Promise<PostgresAdmin> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  lifecycle.onCleanup('postgres admin connection', () => client.end());
  return {
    client,
    adminUrl,
    async createDatabase(prefix) {
      const name = `${prefix}_${suffix}`;
      await client.query(`CREATE DATABASE ${name}`);
      lifecycle.onCleanup(`database ${name}`, async () => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      });
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return url.toString();
    },
    backendGroup(name, databaseUrl) {
      const database = new URL(databaseUrl).pathname.slice(1);
      return {
        name,
        pids: async () => {
          const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
          return rows.map((row) => row.pid);
        },
      };
    },
  };
}

export interface Redis {
  url: string;
  process: ChildProcess;
}

/** A private redis-server: its CPU is the limiter's alone, and nothing is left in a shared Redis. */
export async function startRedis(lifecycle: Lifecycle, workDir: string): Promise<Redis> {
  const port = await freePort();
  const dir = path.join(workDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const logFile = path.join(workDir, 'redis.log');
  const child = lifecycle.spawnLogged('redis-server', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    logFile,
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitFor(`redis-server on ${port}; see ${logFile}`, async () => {
    const { stdout } = await execFileAsync('redis-cli', ['-p', String(port), 'ping']);
    return stdout.trim() === 'PONG';
  });
  return { url, process: child };
}

export interface Service {
  name: string;
  port: number;
  process: ChildProcess;
  logFile: string;
}

export async function startService(
  lifecycle: Lifecycle,
  workDir: string,
  name: string,
  command: string[],
  env: NodeJS.ProcessEnv,
  readyPath = '/readyz',
  chosenPort?: number,
): Promise<Service> {
  const port = chosenPort ?? (await freePort());
  const logFile = path.join(workDir, `${name}.log`);
  // BENCH_NODE_ARGS go to every Node process the bench starts this way, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = command[0] === process.execPath ? (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
  const child = lifecycle.spawnLogged(name, command[0]!, [...nodeArgs, ...command.slice(1)], {
    cwd: ROOT,
    // BENCH_PROFILE_DIR: where bench/lib/cpu-profile.cjs, when preloaded by BENCH_NODE_ARGS, writes its profiles.
    env: { PATH: process.env.PATH, ...(process.env.BENCH_PROFILE_DIR ? { BENCH_PROFILE_DIR: process.env.BENCH_PROFILE_DIR } : {}), ...env, PORT: String(port), HOST: '127.0.0.1' },
    logFile,
  });
  await waitForHttp(`http://127.0.0.1:${port}${readyPath}`, child, name, logFile);
  return { name, port, process: child, logFile };
}

export interface NginxValues {
  imagesUpstreams: string[];
  toolsUpstreams: string[];
  imagesPublicDir: string;
  clientMaxBodySize: string;
}

export interface Nginx {
  port: number;
  baseUrl: string;
  process: ChildProcess;
  confFile: string;
}

async function runNginx(lifecycle: Lifecycle, dir: string, name: string, conf: (port: number) => string): Promise<Nginx> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const confFile = path.join(dir, 'nginx.conf');
  writeFileSync(confFile, conf(port));
  const logFile = path.join(dir, 'nginx.log');
  const child = lifecycle.spawnLogged(name, 'nginx', ['-e', 'stderr', '-p', dir, '-c', confFile, '-g', 'daemon off;'], { logFile });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/nginx-health`, child, name, logFile);
  return { port, baseUrl, process: child, confFile };
}

/** The project's front door: proxy/nginx.conf.template rendered as the e2e tests render it. */
export function startProjectNginx(lifecycle: Lifecycle, dir: string, name: string, values: NginxValues): Promise<Nginx> {
  mkdirSync(path.join(dir, 'web-app'), { recursive: true });
  return runNginx(lifecycle, dir, name, (port) =>
    standaloneNginxConf(
      renderNginxTemplate({
        LISTEN_PORT: String(port),
        IMAGES_UPSTREAM_SERVERS: upstreamServers(values.imagesUpstreams),
        TOOLS_UPSTREAM_SERVERS: upstreamServers(values.toolsUpstreams),
        RESOLVER_DIRECTIVE: '# fixed loopback upstreams: nothing to resolve',
        IMAGES_PUBLIC_DIR: values.imagesPublicDir.replace(/\/?$/, '/'),
        // Images on the volume: the bench measures the local backend.
        IMAGES_BUCKET_URL: '',
        // The web app is not measured: an empty folder stands for its build.
        WEB_APP_DIR: path.join(dir, 'web-app') + '/',
        PROXY_DIR,
        CLIENT_MAX_BODY_SIZE: values.clientMaxBodySize,
        SITE_CACHE_DIR: path.join(dir, 'site-cache'),
      }),
      dir,
    ),
  );
}

/**
 * Baseline of target 4: nginx serving the same folder statically with nothing else, in the same
 * standalone wrapper (one worker), as stock nginx does: sendfile on (the nginx image's nginx.conf) and
 * nginx's default access log (combined format, to a file).
 */
export function startStaticNginx(lifecycle: Lifecycle, dir: string, publicDir: string): Promise<Nginx> {
  return runNginx(lifecycle, dir, 'nginx (static baseline)', (port) =>
    standaloneNginxConf(
      [
        'sendfile on;',
        'server {',
        `  listen ${port};`,
        `  access_log ${dir}/access.log;`,
        `  location /i/ { alias ${publicDir.replace(/\/?$/, '/')}; }`,
        '  location = /nginx-health { return 200 "ok"; }',
        '}',
      ].join('\n'),
      dir,
    ),
  );
}

export function randomSuffix(): string {
  return randomBytes(4).toString('hex');
}

/** Runs a built service's admin CLI as an operator would; returns its output. */
export async function runAdmin(service: 'images' | 'tools', env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [`services/${service}/dist/src/admin/cli.js`, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  return stdout;
}
