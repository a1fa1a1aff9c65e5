import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateToLatest, openDb } from '@platform/kit';
import { serviceProcesses, stopMain } from '@platform/kit/testing';
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
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('when run with --help, then it prints the commands and exits 0; without a command, exits 2', async () => {
    const help = await runCli(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('key:create --name <name>');
    expect((await runCli([], {})).code).toBe(2);
  });

  test('when the environment is bad, then it prints one config error line and exits 1', async () => {
    expect(await runCli(['key:list'], { DATABASE_URL: 'mysql://nope' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'config error: DATABASE_URL must be postgres://…, pglite:memory or pglite:<dir>\n',
    });
  });

  test('when the embedded database does not exist, then it says so, creates nothing and exits 1', async () => {
    const result = await runCli(['key:list'], { DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '' });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: no database at ${dir}/db: start the service (or npm start) once to create it, or set DATABASE_URL to the one you mean\n`,
    });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('when DATABASE_URL is relative, then it is resolved from the directory npm was run in (INIT_CWD), and the CLI says which database it opened', async () => {
    await createEmbeddedDatabase(path.join(dir, 'data', 'tools-db'));
    const result = await runCli(['key:create', '--name', 'cli'], { INIT_CWD: dir, DATABASE_URL: 'pglite:./data/tools-db', REDIS_URL: '', LOG_LEVEL: 'silent' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`database: embedded PGlite at ${dir}/data/tools-db\n`);
    expect(result.stdout).toMatch(/^created API key #1 "cli" \(limit 1000 \(default\)\/hour\)\nkey: tk_[A-Za-z0-9_-]{43}\n/);
    expect(fs.existsSync(path.join(__dirname, '..', 'data', 'tools-db'))).toBe(false);
  }, 60_000);

  test('when the service runs on the embedded database, then the CLI works through it (no second opener), and the service knows the new key at once', async () => {
    const env = { DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const main = startMain(env);
    try {
      const port = await main.port;
      const created = await runCli(['key:create', '--name', 'while-running', '--limit', '5'], env);
      expect(created.code).toBe(0);
      expect(created.stderr).toBe(`database: embedded PGlite at ${dir}/db, through the running process ${main.child.pid}\n`);
      const key = /key: (tk_\S+)/.exec(created.stdout)![1]!;
      const answer = await fetch(`http://127.0.0.1:${port}/api/index.php?action=categories`, { headers: { 'X-API-Key': key } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('5');
      // key:list runs in the service's process, so it sees the in-memory limiter's count.
      const listed = await runCli(['key:list'], env);
      expect(listed.stdout).toMatch(/while-running\ttk_\S+…\tenabled\t5\t1\t\d+s/);
      // A usage error keeps its exit status through the socket.
      expect((await runCli(['key:limit', 'while-running'], env)).code).toBe(2);
    } finally {
      await stopMain(main);
    }
  }, 60_000);

  test('when an editor is added with the password on stdin while the service runs, then the password travels through it and signs in at /admin/', async () => {
    const env = { DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const main = startMain(env);
    try {
      const port = await main.port;
      const added = await runCli(['editor:add', 'alice', '--password-stdin'], env, 'correct horse\n');
      expect(added).toMatchObject({ code: 0, stdout: 'created editor #1 "alice"; they sign in at /admin/\n' });
      const form = await fetch(`http://127.0.0.1:${port}/admin/`);
      const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const signIn = await fetch(`http://127.0.0.1:${port}/admin/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        body: new URLSearchParams({ name: 'alice', password: 'correct horse', csrf }).toString(),
      });
      expect(signIn.status).toBe(303);
      expect((await runCli(['editor:list'], env)).stdout).toMatch(/^1\talice\tenabled\t\S+\t\S+Z$/m);
    } finally {
      await stopMain(main);
    }
  }, 60_000);

  test('when a second service process starts on an embedded database in use, then it refuses with one clear line', async () => {
    const env = { DATABASE_URL: `pglite:${dir}/db`, REDIS_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    const first = startMain(env);
    try {
      await first.port;
      const second = startMain(env);
      const exited = await second.exit;
      expect(exited.code).toBe(1);
      expect(exited.stderr).toContain(`the embedded database ${dir}/db is in use by process ${first.child.pid}`);
    } finally {
      await stopMain(first);
    }
  }, 60_000);
});
