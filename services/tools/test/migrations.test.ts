import { migrationSource } from '../src/db/migration-source';
import { databaseTarget } from '../src/db/database-target';
import { migrateToLatest, openDb } from '../src/db/open-db';
import { createTestDatabase } from './support/test-database';

test('when the migrations are rolled back and re-applied, then the schema comes back', async () => {
  const database = await createTestDatabase('tools');
  const db = await openDb(databaseTarget(database.url, process.cwd()));
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
