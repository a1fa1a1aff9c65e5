import type { Knex } from 'knex';
import { openDb } from '../src/db/open-db';
import { createIndexConcurrently, lockSafe } from '../src/db/online-migration';
import { checkMigrationRules, describeViolations } from '../src/testing/migration-rules';

type Migration = { up(db: Knex): Promise<void>; down(db: Knex): Promise<void>; config?: { transaction: boolean } };

function sourceOf(migrations: Array<[string, Migration]>): Knex.MigrationSource<string> {
  return {
    getMigrations: async () => migrations.map(([name]) => name),
    getMigrationName: (name) => name,
    getMigration: async (name) => migrations.find(([candidate]) => candidate === name)![1],
  };
}

const createTable: Migration = { up: async (db) => void (await db.raw('CREATE TABLE things (id bigint PRIMARY KEY, a int)')), down: async () => {} };

test('when a migration indexes, constrains and renames a table an earlier one created, then each statement is reported with the helper to use instead', async () => {
  const unsafe: Migration = {
    async up(db) {
      await db.raw('CREATE INDEX things_a ON things (a)');
      await db.raw('ALTER TABLE things ADD CONSTRAINT things_a_positive CHECK (a > 0)');
      await db.raw('ALTER TABLE things RENAME COLUMN a TO b');
    },
    down: async () => {},
  };
  const db = await openDb({ kind: 'pglite-memory' }, { migrationSource: sourceOf([['1_create', createTable], ['2_unsafe', unsafe]]) });
  try {
    const found = await checkMigrationRules(db);
    const message = describeViolations(found);
    expect(found.every((violation) => violation.migration === '2_unsafe')).toBe(true);
    expect(message).toContain('CREATE INDEX on things, which has rows, blocks its writes for the whole build: use createIndexConcurrently(db, { name, table, definition })');
    expect(message).toContain('use addConstraint(db, table, name, definition) from @platform/kit');
    expect(message).toContain('RENAME on things breaks the replicas still running the previous release: expand/contract instead');
    expect(message).toContain('call limitLockWaits(db) first in the migration, or run it in lockSafe(db, (trx) => …)');
  } finally {
    await db.destroy();
  }
});

test('when the same changes go through the helpers, then nothing is reported', async () => {
  const safe: Migration = {
    config: { transaction: false },
    async up(db) {
      await createIndexConcurrently(db, { name: 'things_a', table: 'things', definition: '(a)' });
      await lockSafe(db, (trx) => trx.raw('ALTER TABLE things ADD COLUMN b int'));
    },
    down: async () => {},
  };
  const db = await openDb({ kind: 'pglite-memory' }, { migrationSource: sourceOf([['1_create', createTable], ['2_safe', safe]]) });
  try {
    expect(await checkMigrationRules(db)).toEqual([]);
  } finally {
    await db.destroy();
  }
});
