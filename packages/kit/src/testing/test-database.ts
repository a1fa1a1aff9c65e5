import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { openDb } from '../db/open-db';
import { migrateToLatest } from '../db/migrate';

/** What a service's test databases are migrated with: its migration source, and the folder of its migrations. */
export interface ServiceMigrations {
  migrationSource: Knex.MigrationSource<unknown>;
  migrationsDir: string;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * An empty database for one test file: `pglite:memory` by default; with TEST_DATABASE_URL a uniquely
 * named database on that server, because jest runs test files in parallel.
 */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return { url: 'pglite:memory', drop: async () => {} };
  const name = `${prefix}_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin: Knex = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}

/** The environment variable through which globalSetup hands the migrated template to the test files. */
const templateVariable = (prefix: string) => `PGLITE_TEMPLATE_${prefix.toUpperCase()}`;

/** Migrations and PGlite's version: a template made from other ones is not reused. */
function templateFingerprint(migrationsDir: string): string {
  const hash = crypto.createHash('sha256');
  for (const file of fs.readdirSync(migrationsDir).sort()) hash.update(file).update(fs.readFileSync(path.join(migrationsDir, file)));
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  hash.update(fs.readFileSync(path.join(dir, 'package.json')));
  return hash.digest('hex').slice(0, 16);
}

/** Migrates a new embedded database in `dir` and closes it cleanly: a template to copy. */
async function migrateTemplate(dir: string, migrations: ServiceMigrations): Promise<void> {
  const db = await openDb({ kind: 'pglite-dir', dir }, { migrationSource: migrations.migrationSource });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/**
 * For jest's globalSetup: migrates one embedded database, once, and keeps its folder as a template
 * (in the system temp folder, reused while the migrations are unchanged). A new PGlite database
 * takes seconds to initialise; a copy of the template opens in a fraction of one, so test files do
 * not wait on (or time out behind) a dozen initialisations. (A folder, not PGlite's dump: a database
 * loaded from a dump keeps a timer running after it is closed, and the test process never exits.)
 */
export async function prepareTemplate(prefix: string, migrations: ServiceMigrations): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  const dir = path.join(os.tmpdir(), `pglite-template-${prefix}-${templateFingerprint(migrations.migrationsDir)}`);
  if (!fs.existsSync(dir)) {
    const partial = `${dir}.${process.pid}.partial`;
    fs.rmSync(partial, { recursive: true, force: true });
    await migrateTemplate(partial, migrations);
    fs.renameSync(partial, dir);
  }
  process.env[templateVariable(prefix)] = dir;
}

let templateInThisProcess: Promise<string> | undefined;

/**
 * A migrated database for one test file: on TEST_DATABASE_URL's server, a new database; else an
 * embedded PGlite on a copy of the template (made here if globalSetup did not run).
 */
export async function openTestDatabase(prefix: string, migrations: ServiceMigrations): Promise<{ db: Knex; url: string; drop(): Promise<void> }> {
  const { migrationSource } = migrations;
  const database = await createTestDatabase(prefix);
  if (database.url !== 'pglite:memory') {
    const db = await openDb({ kind: 'postgres', url: database.url }, { migrationSource });
    await migrateToLatest(db);
    return { db, url: database.url, drop: database.drop };
  }
  const template =
    process.env[templateVariable(prefix)] ??
    (await (templateInThisProcess ??= (async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `pglite-template-${prefix}-`));
      await migrateTemplate(dir, migrations);
      return dir;
    })()));
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-test-db-`));
  fs.cpSync(template, copy, { recursive: true });
  const db = await openDb({ kind: 'pglite-dir', dir: copy }, { migrationSource });
  return { db, url: `pglite:${copy}`, drop: async () => fs.rmSync(copy, { recursive: true, force: true }) };
}
