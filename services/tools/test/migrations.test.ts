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

test('when the migrations have run, then the tags index (built CONCURRENTLY, outside a transaction) is there and valid, and categories start top-level', async () => {
  const database = await createTestDatabase('tools');
  const db = await openDb(databaseTarget(database.url, process.cwd()), { migrationSource });
  try {
    await migrateToLatest(db);
    const index = await db.raw<{ rows: { valid: boolean; definition: string }[] }>(
      "SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'tools_tags_gin_idx'",
    );
    expect(index.rows).toEqual([{ valid: true, definition: expect.stringContaining('USING gin (tags)') }]);
    await db('categories').insert({ slug: 'c', name: 'C' });
    expect((await db('categories').first('parent_id')).parent_id).toBeNull();
    // A category is not its own parent, even written by hand.
    await expect(db.raw('UPDATE categories SET parent_id = id')).rejects.toThrow(/categories_parent_not_self/);
  } finally {
    await db.destroy();
    await database.drop();
  }
});

test('when an install made before them migrates, then the later default aliases are added, and an operator’s own pairs (either direction) and removals of earlier ones stay as they were', async () => {
  const database = await createTestDatabase('tools');
  const db = await openDb(databaseTarget(database.url, process.cwd()), { migrationSource });
  try {
    await migrateToLatest(db);
    await db.migrate.down({ migrationSource });
    await db('search_aliases').whereIn('term', ['密码', 'pdf压缩', 'ocr', '字幕', '备份', '隐私', '开源']).del();
    // The operator's edits before the upgrade: 备份 ↔ backup written the other way round, a group of their own removed.
    await db('search_aliases').insert({ term: 'backup', alias: '备份' });
    await db('search_aliases').where({ term: '谷歌' }).del();
    const revision = async () => (await db('catalog_revision').first('revision')).revision as number;
    const before = await revision();
    await migrateToLatest(db);
    const pairs = await db('search_aliases').select('term', 'alias');
    expect(pairs).toEqual(expect.arrayContaining([{ term: '密码', alias: 'password' }, { term: '密码', alias: 'passwords' }, { term: 'backup', alias: '备份' }]));
    expect(pairs.filter((pair) => pair.term === '备份' || pair.term === '谷歌')).toEqual([]);
    expect(Number(await revision())).toBeGreaterThan(Number(before));
  } finally {
    await db.destroy();
    await database.drop();
  }
});
