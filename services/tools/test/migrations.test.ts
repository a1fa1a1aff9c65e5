import { databaseTarget, migrateToLatest, openDb } from '@platform/kit';
import { createTestDatabase } from '@platform/kit/testing';
import { migrationSource } from '../src/db/migration-source';

// Every migration down and up again: seconds on a busy machine, more than jest's default 5 s.
jest.setTimeout(60_000);

test('when the migrations are rolled back and re-applied, then the schema comes back', async () => {
  const database = await createTestDatabase('tools');
  const db = await openDb(databaseTarget(database.url, process.cwd()), { migrationSource });
  try {
    await migrateToLatest(db);
    await db.migrate.rollback({ migrationSource }, true);
    expect(await db.schema.hasTable('tools')).toBe(false);
    await migrateToLatest(db);
    expect(await db.schema.hasTable('tools')).toBe(true);
  } finally {
    await db.destroy();
    await database.drop();
  }
});
