import { describeWithRealServer } from '@platform/kit/testing';
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { migrationSource } from '../src/db/migration-source';
import { migrateToLatest, openDb } from '@platform/kit';
import { realDatabaseUrl } from './support/harness';

// Needs real Postgres: replicas of `docker compose up --scale images=3` migrate one empty database at once.
describeWithRealServer('TEST_DATABASE_URL', 'migrations when replicas start together (real Postgres)', () => {
  test('when three replicas migrate an empty database at once, then all succeed and each migration runs once', async () => {
    const name = `images_t_${randomBytes(6).toString('hex')}`;
    const admin = knex({ client: 'pg', connection: realDatabaseUrl!, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(realDatabaseUrl!);
    url.pathname = `/${name}`;
    const replicas = await Promise.all([1, 2, 3].map(() => openDb({ kind: 'postgres', url: url.toString() }, { migrationSource })));
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
  });
});
