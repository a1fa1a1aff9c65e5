import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateToLatest, openDb } from '@platform/kit';
import { serviceProcesses, stopMain } from '@platform/kit/testing';
import { ADMIN_HELP } from '../src/admin/admin-help';
import { migrationSource } from '../src/db/migration-source';

// The admin CLI as an operator runs it: which database it opens, and beside a running service.

const { runCli, startMain } = serviceProcesses(path.resolve(__dirname, '..'));

async function createEmbeddedDatabase(dir: string): Promise<void> {
  const db = await openDb({ kind: 'pglite-dir', dir }, { migrationSource });
  await migrateToLatest(db);
  await db.destroy();
}

describe('admin CLI process', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('when run with --help, then it prints the commands and exits 0; without a command, exits 2', async () => {
    expect(await runCli(['--help'], {})).toEqual({ code: 0, stdout: `${ADMIN_HELP}\n`, stderr: '' });
    expect((await runCli([], {})).code).toBe(2);
  });

  test('when the environment is bad, then it prints one config error line and exits 1', async () => {
    expect(await runCli(['list-users'], { PORT: 'abc' })).toEqual({ code: 1, stdout: '', stderr: 'config error: PORT must be a non-negative integer\n' });
  });

  test('when DATABASE_URL is a Postgres server and the keys are not set, then it refuses with one config error line, so that it never seals a token with the public development key', async () => {
    const env = { NODE_ENV: '', THUMB_SIGNING_SECRET: '', TOKEN_ENCRYPTION_KEY: '', DATABASE_URL: 'postgres://images@127.0.0.1:1/images' };
    expect(await runCli(['create-user', 'alice'], env)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'config error: THUMB_SIGNING_SECRET is required unless DATABASE_URL is pglite and NODE_ENV is unset, development or test: set a random value made by openssl rand -hex 32\n',
    });
  });

  test('when the embedded database does not exist, then it says so, creates nothing and exits 1', async () => {
    const result = await runCli(['list-users'], { DATABASE_URL: `pglite:${dir}/db`, STORAGE_DIR: `${dir}/files` });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: no database at ${dir}/db: start the service (or npm start) once to create it, or set DATABASE_URL to the one you mean\n`,
    });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('when DATABASE_URL is relative, then it is resolved from the directory npm was run in (INIT_CWD), and the CLI says which database it opened', async () => {
    await createEmbeddedDatabase(path.join(dir, 'data', 'images-db'));
    const result = await runCli(['create-user', 'alice'], { INIT_CWD: dir, DATABASE_URL: 'pglite:./data/images-db', STORAGE_DIR: './data/images' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`database: embedded PGlite at ${dir}/data/images-db\n`);
    expect(result.stdout).toMatch(/^created user alice \(id 1\) in group default\ntoken \(store it now; the user also sees it in the account area\): [\w-]{43}\n$/);
  });

  test('when the service runs on the embedded database, then the CLI works through it (no second opener), and the new user can use the service at once', async () => {
    const env = { DATABASE_URL: `pglite:${dir}/db`, STORAGE_DIR: `${dir}/files`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const main = startMain(env);
    try {
      const port = await main.port;
      const created = await runCli(['create-user', 'bob'], env);
      expect(created.code).toBe(0);
      expect(created.stderr).toBe(`database: embedded PGlite at ${dir}/db, through the running process ${main.child.pid}\n`);
      const token = /: ([\w-]{43})$/m.exec(created.stdout)![1]!;
      const profile = await fetch(`http://127.0.0.1:${port}/api/image.php?action=profile`, { headers: { 'X-API-Token': token } });
      expect(await profile.json()).toMatchObject({ code: 0, data: { username: 'bob', group: 'default' } });
      const listed = await runCli(['list-users'], env);
      expect(listed.stdout).toMatch(/^id\tname\tgroup\tused_bytes\tquota_bytes\tused\tadmin\tdisabled\n1\tbob\tdefault\t0\t1073741824\t0 B \/ 1 GiB\tno\tno\n$/);
      // A password piped in travels to the running service, and signs in there at once.
      expect(await runCli(['set-password', 'bob'], env, 'correct horse battery\n')).toMatchObject({ code: 0, stdout: 'password of bob set\n' });
      const signIn = await fetch(`http://127.0.0.1:${port}/api/image.php?action=login`, { method: 'POST', body: new URLSearchParams({ username: 'bob', password: 'correct horse battery' }) });
      expect(await signIn.json()).toMatchObject({ code: 0, msg: '登录成功', data: { user: { username: 'bob' } } });
      expect(await runCli(['set-password', 'bob'], env, '')).toMatchObject({ code: 2, stderr: expect.stringContaining('error: no password on stdin') });
      // Failures keep their exit status and stderr through the socket.
      expect(await runCli(['create-user', 'bob'], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('error: user bob already exists\n') });
      expect((await runCli(['create-user'], env)).code).toBe(2);
    } finally {
      await stopMain(main);
    }
  }, 60_000);

  test('when a second service process starts on an embedded database in use, then it refuses with one clear line', async () => {
    const env = { DATABASE_URL: `pglite:${dir}/db`, STORAGE_DIR: `${dir}/files`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const first = startMain(env);
    try {
      await first.port;
      const exited = await startMain(env).exit;
      expect(exited.code).toBe(1);
      expect(exited.stderr).toContain(`the embedded database ${dir}/db is in use by process ${first.child.pid}`);
    } finally {
      await stopMain(first);
    }
  }, 60_000);

  test('when another local user has taken the fixed socket name in the temp folder, then the service still starts, answers the CLI on a socket in the data folder only its user may use, and the lock file names it', async () => {
    const env = { DATABASE_URL: `pglite:${dir}/db`, STORAGE_DIR: `${dir}/files`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    // What anyone on the machine could make before the service starts: the name the socket had, derived from the data folder.
    const squatted = path.join(os.tmpdir(), `pglite-admin-${createHash('sha256').update(`${dir}/db`).digest('hex').slice(0, 16)}.sock`);
    fs.mkdirSync(squatted);
    const main = startMain(env);
    try {
      await main.port;
      const owner = JSON.parse(fs.readFileSync(`${dir}/db.lock`, 'utf8')) as { pid: number; adminSocket: string };
      expect(owner).toEqual({ pid: main.child.pid, adminSocket: `${dir}/db.admin.sock` });
      const socket = fs.statSync(owner.adminSocket);
      expect({ socket: socket.isSocket(), mode: (socket.mode & 0o777).toString(8) }).toEqual({ socket: true, mode: '600' });
      const listed = await runCli(['list-users'], env);
      expect(listed).toMatchObject({ code: 0, stderr: `database: embedded PGlite at ${dir}/db, through the running process ${main.child.pid}\n` });
    } finally {
      await stopMain(main);
      fs.rmSync(squatted, { recursive: true, force: true });
    }
  }, 60_000);

  test('when the data folder\'s path is too long for a socket beside it, then the socket is in a new owner-only folder of its own, the CLI reaches it, and a stop removes the folder', async () => {
    const longDir = path.join(dir, 'a-data-folder-with-a-long-name-'.repeat(3), 'db');
    expect(Buffer.byteLength(`${longDir}.admin.sock`)).toBeGreaterThan(107);
    fs.mkdirSync(path.dirname(longDir));
    const env = { DATABASE_URL: `pglite:${longDir}`, STORAGE_DIR: `${dir}/files`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const main = startMain(env);
    let socketFolder = '';
    try {
      await main.port;
      const owner = JSON.parse(fs.readFileSync(`${longDir}.lock`, 'utf8')) as { pid: number; adminSocket: string };
      socketFolder = path.dirname(owner.adminSocket);
      expect(path.dirname(socketFolder)).toBe(os.tmpdir());
      expect(path.basename(socketFolder)).toMatch(/^pglite-admin-\w{6}$/);
      expect((fs.statSync(socketFolder).mode & 0o777).toString(8)).toBe('700');
      const created = await runCli(['create-user', 'carol'], env);
      expect(created).toMatchObject({ code: 0, stderr: `database: embedded PGlite at ${longDir}, through the running process ${main.child.pid}\n` });
    } finally {
      main.child.kill('SIGTERM');
      expect((await main.exit).code).toBe(0);
    }
    expect(fs.existsSync(socketFolder)).toBe(false);
    expect(fs.existsSync(`${longDir}.lock`)).toBe(false);
  }, 60_000);
});
