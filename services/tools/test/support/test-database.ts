import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrateToLatest, openDb } from '../../src/db/open-db';

// This file is the same in both services.

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
const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations');

/** Migrations and PGlite's version: a template made from other ones is not reused. */
function templateFingerprint(): string {
  const hash = crypto.createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  hash.update(fs.readFileSync(path.join(dir, 'package.json')));
  return hash.digest('hex').slice(0, 16);
}

async function dumpMigratedDatabase(): Promise<Buffer> {
  const db = await openDb({ kind: 'pglite-memory' });
  try {
    await migrateToLatest(db);
    const pglite = (db.client as { pglite: { dumpDataDir(compression: 'none'): Promise<Blob> } }).pglite;
    return Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await db.destroy();
  }
}

/**
 * For jest's globalSetup: migrates one embedded database, once, and keeps its files as a template
 * (in the system temp folder, reused while the migrations are unchanged). A new PGlite database
 * takes seconds to initialise; one loaded from the template takes well under one, so test files
 * do not wait on (or time out behind) a dozen initialisations.
 */
export async function prepareTemplate(prefix: string): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  const file = path.join(os.tmpdir(), `pglite-template-${prefix}-${templateFingerprint()}.tar`);
  if (!fs.existsSync(file)) {
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, await dumpMigratedDatabase());
    fs.renameSync(partial, file);
  }
  process.env[templateVariable(prefix)] = file;
}

let templateInThisProcess: Promise<Buffer> | undefined;

/**
 * A migrated database for one test file: on TEST_DATABASE_URL's server, a new database; else an
 * in-memory PGlite loaded from the template (made here if globalSetup did not run).
 */
export async function openTestDatabase(prefix: string): Promise<{ db: Knex; url: string; drop(): Promise<void> }> {
  const database = await createTestDatabase(prefix);
  if (database.url !== 'pglite:memory') {
    const db = await openDb({ kind: 'postgres', url: database.url });
    await migrateToLatest(db);
    return { db, url: database.url, drop: database.drop };
  }
  const file = process.env[templateVariable(prefix)];
  const template = file ? fs.readFileSync(file) : await (templateInThisProcess ??= dumpMigratedDatabase());
  const db = await openDb({ kind: 'pglite-memory' }, { loadDataDir: new Blob([template]) });
  return { db, url: database.url, drop: database.drop };
}
