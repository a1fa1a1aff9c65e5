import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Client } from 'pg';
import { PROXY_DIR, renderNginxTemplate, standaloneNginxConf, upstreamServers } from '../lib/nginx-template';
import { WEB_APP_BUILD_DIR } from '../lib/web-app';
import { e2eServiceImages, runInContainer, spawnContainer } from './containers';
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
  /** Its file (to wait on with whenFileShows). */
  accessLogFile: string;
  /** Everything nginx wrote to its error log so far (its stderr, as in the container). */
  errorLog(): string;
  images: Replica[];
  tools: Replica[];
  /**
   * Stops the replica's process if it still runs (`stopWith`, default SIGKILL: a crash; SIGTERM: as
   * an orchestrator replaces it in a rolling restart) and waits for it to exit, starts it again on its
   * port with its environment, and resolves with the old process's exit code once the new one's
   * /readyz answers 200. nginx is not told: it finds the replica itself. `env` changes apply to this
   * start only.
   */
  restartReplica(replica: Replica, options?: { stopWith?: 'SIGKILL' | 'SIGTERM'; env?: NodeJS.ProcessEnv }): Promise<number | null>;
  imagesDatabaseUrl: string;
  toolsDatabaseUrl: string;
  storageDir: string;
  /** Where new images are stored; with s3, the bucket (s3rver on loopback) nginx reads /i/ from. */
  storage: 'local' | 's3';
  bucket?: { endpoint: string; name: string; prefix: string };
  redisPrefix: string;
  env: { images: NodeJS.ProcessEnv; tools: NodeJS.ProcessEnv };
  stop(): Promise<void>;
}

export interface PlatformOptions {
  replicas: number;
  clientMaxBodySize: string;
  /** Default: TEST_STORAGE (s3 runs the images service on a bucket of an S3 server started here). */
  storage?: 'local' | 's3';
  /** Settings added to every replica's environment. */
  env?: { images?: NodeJS.ProcessEnv; tools?: NodeJS.ProcessEnv };
}

/** The storage backend the e2e suite runs the images service on: TEST_STORAGE=s3 for the bucket. */
export function e2eStorage(): 'local' | 's3' {
  return process.env.TEST_STORAGE === 's3' ? 's3' : 'local';
}

/** Builds both services' dist/ (not needed when the suite runs on their images). */
export function buildServices(): void {
  if (e2eServiceImages()) return;
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

/**
 * Resolves with the first truthy `check()`, checked now and again each time `file` changes (inotify),
 * never on a timer; `timeoutMs` only bounds the wait, with `what()` in the message.
 */
export function whenFileShows<T>(file: string, check: () => T | undefined | false, what: () => string, timeoutMs = 30000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const watcher = watch(file);
    const finish = (error: Error | null, value?: T) => {
      watcher.close();
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(value as T);
    };
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what()}`)), timeoutMs);
    const look = () => {
      const found = check();
      if (found) finish(null, found);
    };
    watcher.on('change', look);
    watcher.on('error', (error) => finish(error));
    look();
  });
}

/** Resolves with the first match of `pattern` in what the replica has written (stdout and stderr), as it writes it; fails if it exits first. */
export function whenReplicaWrites(replica: Replica, pattern: RegExp | ((output: string) => boolean)): Promise<string> {
  const matches = (output: string) => (typeof pattern === 'function' ? pattern(output) : pattern.test(output));
  return new Promise<string>((resolve, reject) => {
    const child = replica.process;
    const look = () => {
      const output = replica.output.join('');
      if (!matches(output)) return;
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      resolve(output);
    };
    // The replica's own listeners (spawnReplica) append to `output` first: listeners run in order.
    const onData = () => look();
    const onExit = () => reject(new Error(`${replica.name} exited before writing ${String(pattern)}:\n${replica.output.join('')}`));
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
    look();
  });
}

/** How a replica is started: its built script, or a container of its service's image (containers.ts). */
interface Launch {
  script: string;
  env: NodeJS.ProcessEnv;
  container?: { image: string; name: string };
}

function spawnReplica({ script, env, container }: Launch, port: number): { process: ChildProcess; output: string[] } {
  const replicaEnv = { ...env, PORT: String(port), HOST: '127.0.0.1' };
  const child = container
    ? spawnContainer(container.image, container.name, replicaEnv)
    : spawn(process.execPath, [script], { cwd: ROOT, env: replicaEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  return { process: child, output };
}

/** Once the replica says it listens (after its migrations), its /readyz must answer 200. */
async function waitForReady(replica: Replica): Promise<void> {
  await whenReplicaWrites(replica, /service listening/);
  const res = await fetch(`http://127.0.0.1:${replica.port}/readyz`);
  if (res.status !== 200) throw new Error(`${replica.name} listens but /readyz answered ${res.status}: ${await res.text()}`);
}

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

/**
 * s3rver (an S3-protocol server from npm, keeping objects on disk) on a random loopback port, with
 * one bucket. In a process of its own: the tests run admin CLIs synchronously, which would
 * otherwise stop the server they talk to.
 */
async function startBucket(directory: string): Promise<{ endpoint: string; name: string; close(): Promise<void> }> {
  const script = [
    "const S3rver = require('s3rver');",
    `new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(directory)} })`,
    "  .run().then(({ port }) => console.log('listening ' + port), (error) => { console.error(error); process.exit(1); });",
  ].join('\n');
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', () => reject(new Error(`s3rver exited before listening:\n${out}`)));
  });
  const close = async () => {
    await stopProcess(child, 'SIGKILL');
  };
  try {
    const endpoint = `http://127.0.0.1:${port}`;
    const name = `e2e-${randomBytes(4).toString('hex')}`;
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    try {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    } finally {
      client.destroy();
    }
    return { endpoint, name, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Runs nginx on a rendered server config (renderNginxTemplate) in `dir`, resolving once its workers
 * started. The template logs to /dev/stdout and stderr (as in the nginx image, where the error log is
 * stderr too); here they are files, since nginx cannot open /dev/stdout when it is a socket.
 */
export async function startNginx(serverConfig: string, dir: string): Promise<{ process: ChildProcess; accessLogFile: string; errorLog(): string }> {
  const confFile = path.join(dir, 'nginx.conf');
  writeFileSync(confFile, standaloneNginxConf(serverConfig, dir));
  const accessLogFile = path.join(dir, 'access.log');
  const errorLogFile = path.join(dir, 'error.log');
  const accessLogFd = openSync(accessLogFile, 'a');
  const errorLogFd = openSync(errorLogFile, 'a');
  const nginx = spawn('nginx', ['-e', 'stderr', '-p', dir, '-c', confFile, '-g', 'daemon off;'], {
    stdio: ['ignore', accessLogFd, errorLogFd],
  });
  closeSync(accessLogFd);
  closeSync(errorLogFd);
  const errorLog = () => readFileSync(errorLogFile, 'utf8');
  try {
    // The master logs its workers' start once its sockets are bound and its configuration loaded.
    await whenFileShows(errorLogFile, () => /start worker process/.test(errorLog()), () => `nginx to start\n${errorLog()}`);
  } catch (error) {
    await stopProcess(nginx, 'SIGTERM');
    throw error;
  }
  return { process: nginx, accessLogFile, errorLog };
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
  const launchOf = new Map<Replica, Launch>();
  const serviceImages = e2eServiceImages();
  let nginxMaster: ChildProcess | undefined;
  let bucketServer: { close(): Promise<void> } | undefined;
  const storage = options.storage ?? e2eStorage();
  const stop = async (): Promise<void> => {
    // nginx's master stops its workers on SIGTERM; SIGKILL would leave them running, still listening.
    await Promise.all([
      ...(nginxMaster ? [stopProcess(nginxMaster, 'SIGTERM')] : []),
      ...[...images, ...tools].map((replica) => stopProcess(replica.process, 'SIGKILL')),
    ]);
    await bucketServer?.close();
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
    const bucketPrefix = 'platform/';
    const bucket = storage === 's3' ? await startBucket(path.join(workDir, 's3')) : undefined;
    bucketServer = bucket;

    const imagesEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrlFor(real.databaseUrl, imagesDb),
      STORAGE_DIR: storageDir,
      PUBLIC_BASE_URL: baseUrl,
      THUMB_SIGNING_SECRET: randomBytes(32).toString('hex'),
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '5000',
      ...options.env?.images,
      ...(bucket
        ? {
            STORAGE_BACKEND: 's3',
            S3_ENDPOINT: bucket.endpoint,
            S3_REGION: 'us-east-1',
            S3_BUCKET: bucket.name,
            S3_PREFIX: bucketPrefix,
            S3_FORCE_PATH_STYLE: 'true',
            S3_ACCESS_KEY_ID: 'S3RVER',
            S3_SECRET_ACCESS_KEY: 'S3RVER',
          }
        : {}),
    };
    const toolsEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrlFor(real.databaseUrl, toolsDb),
      REDIS_URL: real.redisUrl,
      RATE_LIMIT_KEY_PREFIX: redisPrefix,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '5000',
      ...options.env?.tools,
    };

    // All replicas start at once on empty databases: the migrations race, as in
    // `docker compose up --scale`, and knex's migration lock must sort it out.
    const start = async (service: 'images' | 'tools', index: number, env: NodeJS.ProcessEnv): Promise<Replica> => {
      const name = `${service}-${index}`;
      const port = await freePort();
      const launch: Launch = {
        script: `services/${service}/dist/src/main.js`,
        env,
        container: serviceImages ? { image: serviceImages[service], name: `e2e-${suffix}-${name}` } : undefined,
      };
      const replica: Replica = { name, port, ...spawnReplica(launch, port) };
      launchOf.set(replica, launch);
      return replica;
    };
    for (let i = 0; i < options.replicas; i++) {
      images.push(await start('images', i + 1, imagesEnv));
      tools.push(await start('tools', i + 1, toolsEnv));
    }
    for (const replica of [...images, ...tools]) await waitForReady(replica);

    const loopback = (replicas: Replica[]) => upstreamServers(replicas.map((r) => `127.0.0.1:${r.port}`));
    const server = renderNginxTemplate({
      LISTEN_PORT: String(nginxPort),
      IMAGES_UPSTREAM_SERVERS: loopback(images),
      TOOLS_UPSTREAM_SERVERS: loopback(tools),
      RESOLVER_DIRECTIVE: '# fixed loopback replicas: nothing to resolve',
      IMAGES_PUBLIC_DIR: path.join(storageDir, 'public') + '/',
      // Built by the e2e project's globalSetup, as the proxy image's build stage does.
      WEB_APP_DIR: WEB_APP_BUILD_DIR + '/',
      IMAGES_BUCKET_URL: bucket ? `${bucket.endpoint}/${bucket.name}/${bucketPrefix}public/` : '',
      PROXY_DIR,
      CLIENT_MAX_BODY_SIZE: options.clientMaxBodySize,
      SITE_CACHE_DIR: path.join(nginxDir, 'site-cache'),
    });
    const { process: nginx, accessLogFile, errorLog } = await startNginx(server, nginxDir);
    nginxMaster = nginx;
    const health = await fetch(`${baseUrl}/nginx-health`);
    if (health.status !== 200) throw new Error(`nginx started but /nginx-health answered ${health.status}`);

    const restartReplica: Platform['restartReplica'] = async (replica, { stopWith = 'SIGKILL', env = {} } = {}) => {
      const code = await stopProcess(replica.process, stopWith);
      const launch = launchOf.get(replica)!;
      Object.assign(replica, spawnReplica({ ...launch, env: { ...launch.env, ...env } }, replica.port));
      await waitForReady(replica);
      return code;
    };

    return {
      baseUrl,
      accessLog: () => readFileSync(accessLogFile, 'utf8').split('\n').filter(Boolean),
      accessLogFile,
      errorLog,
      images,
      tools,
      restartReplica,
      imagesDatabaseUrl: imagesEnv.DATABASE_URL!,
      toolsDatabaseUrl: toolsEnv.DATABASE_URL!,
      storageDir,
      storage,
      bucket: bucket && { endpoint: bucket.endpoint, name: bucket.name, prefix: bucketPrefix },
      redisPrefix,
      env: { images: imagesEnv, tools: toolsEnv },
      stop,
    };
  }
}

/**
 * Runs an admin CLI of a built service against the platform's database, as an operator would
 * (`stdin`: what is piped in, e.g. a password); in a container of the service's image when the suite
 * runs on images.
 */
export function runAdmin(service: 'images' | 'tools', env: NodeJS.ProcessEnv, args: string[], stdin?: string): string {
  const serviceImages = e2eServiceImages();
  if (serviceImages) {
    return runInContainer(serviceImages[service], { ...env, LOG_LEVEL: 'silent' }, ['node', `services/${service}/dist/src/admin/cli.js`, ...args], stdin);
  }
  return execFileSync(process.execPath, [`services/${service}/dist/src/admin/cli.js`, ...args], {
    cwd: ROOT,
    env: { ...env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    input: stdin,
  });
}
