/**
 * proxy/postgres-init/01-databases.sh, which the compose file's postgres runs on a fresh volume: per
 * service a login role that owns its database and reaches no other. Run here against the real
 * Postgres (TEST_DATABASE_URL) with throwaway names; each service's `migrate` one-shot then runs as
 * its role, as in compose. (The script's last step, closing the `postgres` database to PUBLIC, is
 * left out here: this server is shared.)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { runCli as runImagesCli } from '../../services/images/src/admin/cli';
import { runCli as runToolsCli } from '../../services/tools/src/admin/cli';

const SCRIPT = path.resolve(__dirname, '..', '..', 'proxy', 'postgres-init', '01-databases.sh');
const serverUrl = process.env.TEST_DATABASE_URL;
if (!serverUrl && process.env.REQUIRE_REAL_SERVICES === '1') throw new Error('REQUIRE_REAL_SERVICES=1 but TEST_DATABASE_URL is not set');
const describeWithPostgres = serverUrl ? describe : describe.skip;

const run = promisify(execFile);
const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const images = `roles_images_${suffix}`;
const tools = `roles_tools_${suffix}`;
const passwords = { [images]: 'e3b0c44298fc1c149afbf4c8996fb924', [tools]: '27ae41e4649b934ca495991b7852b855' };

function urlAs(role: string, database: string): string {
  const url = new URL(serverUrl!);
  url.username = role;
  url.password = passwords[role] ?? '';
  url.pathname = `/${database}`;
  return url.toString();
}

async function query<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function initScript(secretsDir: string, services: string[]) {
  const url = new URL(serverUrl!);
  return run('sh', [SCRIPT], {
    env: {
      PATH: process.env.PATH,
      PGHOST: url.hostname,
      PGPORT: url.port || '5432',
      POSTGRES_USER: decodeURIComponent(url.username) || 'postgres',
      SECRETS_DIR: secretsDir,
      SERVICE_DATABASES: services.join(' '),
      REVOKE_POSTGRES_DATABASE: 'no',
    },
  });
}

function printer() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, print: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

describeWithPostgres('Postgres role per service (proxy/postgres-init)', () => {
  const secretsDir = mkdtempSync(path.join(os.tmpdir(), 'roles-secrets-'));

  beforeAll(async () => {
    for (const [role, password] of Object.entries(passwords)) writeFileSync(path.join(secretsDir, `${role}_db_password`), `${password}\n`);
    await initScript(secretsDir, [images, tools]);
  });

  afterAll(async () => {
    rmSync(secretsDir, { recursive: true, force: true });
    for (const name of [images, tools, `roles_empty_${suffix}`]) {
      await query(serverUrl!, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await query(serverUrl!, `DROP ROLE IF EXISTS "${name}"`);
    }
  });

  test('when the script has run, then each service has a login role without privileges that owns its database', async () => {
    const roles = await query<{ rolname: string; rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean; rolcanlogin: boolean }>(
      serverUrl!,
      `SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolcanlogin FROM pg_roles WHERE rolname IN ('${images}', '${tools}') ORDER BY rolname`,
    );
    expect(roles).toEqual(
      [images, tools].map((rolname) => ({ rolname, rolsuper: false, rolcreatedb: false, rolcreaterole: false, rolcanlogin: true })),
    );
    const owners = await query<{ datname: string; owner: string }>(
      serverUrl!,
      `SELECT datname, pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname IN ('${images}', '${tools}') ORDER BY datname`,
    );
    expect(owners).toEqual([
      { datname: images, owner: images },
      { datname: tools, owner: tools },
    ]);
  });

  test.each([
    [images, tools],
    [tools, images],
  ])('when %s connects to the other service\'s database, then Postgres refuses it', async (role, other) => {
    await expect(query(urlAs(role, other), 'SELECT 1')).rejects.toThrow(`permission denied for database "${other}"`);
  });

  test('when each migrate one-shot runs as its role, then it applies every migration and the role owns the tables', async () => {
    const imagesRun = printer();
    const imagesStatus = await runImagesCli(['migrate'], {
      NODE_ENV: 'production',
      DATABASE_URL: urlAs(images, images),
      DATABASE_POOL_MAX: '2',
      THUMB_SIGNING_SECRET: 'b5f2c9e81d3a47c6902e5f1a8d7c3b46e0f9a2d5',
      TOKEN_ENCRYPTION_KEY: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      LOG_LEVEL: 'silent',
    }, imagesRun.print);
    expect({ status: imagesStatus, err: imagesRun.err.filter((line) => !line.startsWith('database:')) }).toEqual({ status: 0, err: [] });
    const toolsRun = printer();
    const toolsStatus = await runToolsCli(['migrate'], { NODE_ENV: 'production', DATABASE_URL: urlAs(tools, tools), DATABASE_POOL_MAX: '2', LOG_LEVEL: 'silent' }, toolsRun.print);
    expect({ status: toolsStatus, err: toolsRun.err.filter((line) => !line.startsWith('database:')) }).toEqual({ status: 0, err: [] });

    for (const role of [images, tools]) {
      const tables = await query<{ owner: string; count: string }>(
        urlAs(role, role),
        "SELECT tableowner AS owner, count(*) FROM pg_tables WHERE schemaname = 'public' GROUP BY tableowner",
      );
      expect(tables).toEqual([{ owner: role, count: expect.stringMatching(/^[1-9]\d*$/) }]);
      const extension = await query<{ extname: string }>(urlAs(role, role), "SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'");
      expect(extension).toEqual([{ extname: 'pg_trgm' }]);
    }
  });

  test('when a password file is empty, then the script stops naming it and creates nothing', async () => {
    const name = `roles_empty_${suffix}`;
    const file = path.join(secretsDir, `${name}_db_password`);
    writeFileSync(file, '');
    await expect(initScript(secretsDir, [name])).rejects.toMatchObject({ code: 1, stderr: `${file} must not be empty (docs/operating.md, Secrets)\n` });
    expect(await query(serverUrl!, `SELECT 1 FROM pg_roles WHERE rolname = '${name}' UNION ALL SELECT 1 FROM pg_database WHERE datname = '${name}'`)).toEqual([]);
  });
});
