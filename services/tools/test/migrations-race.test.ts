import { databaseTarget, migrateToLatest, openDb } from '@platform/kit';
import { createTestDatabase, describeWithRealServer } from '@platform/kit/testing';
import { migrationSource } from '../src/db/migration-source';

// Needs real Postgres: replicas of `docker compose up --scale tools=3` migrate one empty database at once.
describeWithRealServer('TEST_DATABASE_URL', 'migrations when replicas start together (real Postgres)', () => {
  test.each([10, 1])('when three replicas with pools of %i migrate an empty database at once, then all succeed and each migration runs once', async (poolMax) => {
    const database = await createTestDatabase('tools');
    const replicas = await Promise.all([1, 2, 3].map(() => openDb(databaseTarget(database.url, process.cwd()), { migrationSource, poolMax })));
    try {
      const outcomes = await Promise.allSettled(replicas.map((db) => migrateToLatest(db)));
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const applied = await replicas[0]!('knex_migrations').pluck('name');
      // Each migration exactly once, in order.
      expect(applied).toEqual(await migrationSource.getMigrations([]));
      expect(applied.length).toBeGreaterThanOrEqual(2);
      expect(await replicas[0]!('tools').count({ n: '*' })).toEqual([{ n: expect.anything() }]);
    } finally {
      await Promise.all(replicas.map((db) => db.destroy()));
      await database.drop();
    }
  }, 180_000);
});
