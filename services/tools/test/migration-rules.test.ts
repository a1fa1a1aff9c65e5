import { databaseTarget, openDb } from '@platform/kit';
import { checkMigrationRules, createTestDatabase, describeViolations } from '@platform/kit/testing';
import { migrationSource } from '../src/db/migration-source';

test('when every migration is applied in turn, then each statement on a table an earlier one created is online-safe (lock_timeout, CONCURRENTLY, NOT VALID then VALIDATE, no rename or rewrite)', async () => {
  const database = await createTestDatabase('tools_rules');
  const db = await openDb(databaseTarget(database.url, process.cwd()), { migrationSource });
  try {
    const found = await checkMigrationRules(db);
    if (found.length > 0) throw new Error(`${found.length} statement(s) are not online-safe:\n\n${describeViolations(found)}`);
  } finally {
    await db.destroy();
    await database.drop();
  }
});
