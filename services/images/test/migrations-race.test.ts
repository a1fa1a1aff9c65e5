import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeWithRealServer, serviceProcesses } from '@platform/kit/testing';
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { migrationSource } from '../src/db/migration-source';
import { migrateToLatest, openDb, requireMigrated } from '@platform/kit';
import { realDatabaseUrl, TEST_KEYS } from './support/harness';

// Needs real Postgres: replicas of `docker compose up --scale images=3` migrate one empty database at once.
describeWithRealServer('TEST_DATABASE_URL', 'migrations when replicas start together (real Postgres)', () => {
  test.each([10, 1])('when three replicas with pools of %i migrate an empty database at once, then all succeed and each migration runs once', async (poolMax) => {
    const name = `images_t_${randomBytes(6).toString('hex')}`;
    const admin = knex({ client: 'pg', connection: realDatabaseUrl!, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(realDatabaseUrl!);
    url.pathname = `/${name}`;
    const replicas = await Promise.all([1, 2, 3].map(() => openDb({ kind: 'postgres', url: url.toString() }, { migrationSource, poolMax })));
    try {
      const outcomes = await Promise.allSettled(replicas.map((db) => migrateToLatest(db)));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const applied = await replicas[0]!('knex_migrations').select('name');
      expect(applied.map((row) => row.name)).toEqual(await migrationSource.getMigrations([]));
      expect(await replicas[0]!('groups').orderBy('name').pluck('name')).toEqual(['default', 'vip']);
    } finally {
      await Promise.all(replicas.map((db) => db.destroy()));
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    }
  }, 180_000);

  test('when a replica that verifies meets a database one migration behind, then it refuses in one line naming the command, and starts once the migration ran', async () => {
    const name = `images_t_${randomBytes(6).toString('hex')}`;
    const admin = knex({ client: 'pg', connection: realDatabaseUrl!, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(realDatabaseUrl!);
    url.pathname = `/${name}`;
    const db = await openDb({ kind: 'postgres', url: url.toString() }, { migrationSource, poolMax: 1 });
    try {
      const names = await migrationSource.getMigrations([]);
      for (let i = 1; i < names.length; i += 1) await db.migrate.up();
      await expect(requireMigrated(db, 'images')).rejects.toThrow(
        `the images database schema is older than this build: 1 migration(s) not applied (first ${names.at(-1)}); run \`npm run admin -- images migrate\` (compose: docker compose run --rm images-migrate) before starting replicas`,
      );
      await migrateToLatest(db);
      await expect(requireMigrated(db, 'images')).resolves.toBeUndefined();
    } finally {
      await db.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    }
  });

  test('when a replica started with DATABASE_MIGRATIONS=verify meets an empty database, then it exits 1 with one line naming the command, before listening', async () => {
    const name = `images_t_${randomBytes(6).toString('hex')}`;
    const admin = knex({ client: 'pg', connection: realDatabaseUrl!, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(realDatabaseUrl!);
    url.pathname = `/${name}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-verify-'));
    try {
      const { exit } = serviceProcesses(path.join(__dirname, '..')).startMain({
        ...TEST_KEYS,
        DATABASE_URL: url.toString(),
        DATABASE_MIGRATIONS: 'verify',
        STORAGE_DIR: dir,
        PORT: '0',
        HOST: '127.0.0.1',
        INIT_CWD: '',
      });
      const { code, stderr } = await exit;
      const names = await migrationSource.getMigrations([]);
      expect([code, stderr]).toEqual([
        1,
        `images service failed to start: the images database schema is older than this build: ${names.length} migration(s) not applied (first ${names[0]}); run \`npm run admin -- images migrate\` (compose: docker compose run --rm images-migrate) before starting replicas\n`,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    }
  });
});
