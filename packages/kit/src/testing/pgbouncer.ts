import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Where Debian's `apt-get install pgbouncer` puts it (1.18), unless PGBOUNCER_BINARY names another. */
export const PGBOUNCER_BINARY = process.env.PGBOUNCER_BINARY ?? '/usr/sbin/pgbouncer';

/** A PgBouncer ≥ 1.21 when one is built here (scripts/ci/current-pgbouncer.sh; CI sets it), else undefined. */
export const CURRENT_PGBOUNCER_BINARY = process.env.PGBOUNCER_CURRENT_BINARY || undefined;

export interface PgBouncerOptions {
  /** default_pool_size: server connections per database (20). */
  poolSize?: number;
  /** The executable (PGBOUNCER_BINARY). */
  binary?: string;
  /** PgBouncer ≥ 1.21's `max_prepared_statements` (0 = off); unset = not written (1.18 refuses the setting). */
  maxPreparedStatements?: number;
}

export interface RunningPgBouncer {
  /** `serverUrl` with host and port replaced by the pooler's. */
  url: string;
  port: number;
  /** What it runs: `PgBouncer 1.18.0`, with `max_prepared_statements = N` when set. */
  description: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A PgBouncer of its own (config and socket in a new temp folder, a free port) in front of the
 * Postgres of `serverUrl`, in transaction pooling mode, what managed poolers run. Every database name
 * is forwarded (`*`), logging in as the URL's user; clients are not authenticated (`auth_type = any`:
 * loopback, tests only).
 */
export async function startPgBouncer(serverUrl: string, options: PgBouncerOptions = {}): Promise<RunningPgBouncer> {
  const binary = options.binary ?? PGBOUNCER_BINARY;
  const maxPrepared = options.maxPreparedStatements;
  const server = new URL(serverUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  const port = await freePort();
  // PgBouncer refuses to run as root; as root (a CI container) it switches to the postgres user, which
  // must then own the folder it writes its log, pid file and socket in.
  const runAs = process.getuid?.() === 0 ? 'postgres' : undefined;
  if (runAs) {
    const id = (flag: string) => Number(execFileSync('id', [flag, runAs], { encoding: 'utf8' }).trim());
    fs.chownSync(dir, id('-u'), id('-g'));
  }
  const password = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${decodeURIComponent(server.username) || 'postgres'}${password}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = any',
      ...(runAs ? [`user = ${runAs}`] : []),
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 2000',
      ...(maxPrepared !== undefined ? [`max_prepared_statements = ${maxPrepared}`] : []),
      // DROP DATABASE … WITH (FORCE) ends the server connections to a test's database: let them go.
      'server_check_delay = 0',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const child = spawn(binary, [path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const log = fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8').slice(-2000) : '';
      fs.rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start on port ${port}: ${stderr || log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  return {
    url: url.toString(),
    port,
    description: maxPrepared !== undefined ? `${version}, max_prepared_statements = ${maxPrepared}` : version,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
