import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { migrationSource } from '../src/db/migration-source';
import { migrateToLatest, openDb } from '../src/db/open-db';
import { createTestDatabase } from './support/test-database';

test('when the migrations are rolled back and re-applied, then the schema comes back', async () => {
  const database = await createTestDatabase('tools');
  const db = openDb(database.url);
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

test('when a tool is visited, then the visit is an in-place (HOT) update that writes no index entry', async () => {
  const database = await createTestDatabase('tools');
  const db = openDb(database.url);
  try {
    await migrateToLatest(db);
    const indexedColumns = await db.raw<{ rows: { indexdef: string }[] }>("SELECT indexdef FROM pg_indexes WHERE tablename = 'tools'");
    expect(indexedColumns.rows.map((row) => row.indexdef).join('\n')).not.toMatch(/visits/);

    const [category] = await db('categories').insert({ slug: 'dev', name: 'Dev' }).returning('id');
    await db('tools').insert({ slug: 'hot', name: 'Hot', url: 'https://example.org', category_id: category.id });
    const catalog = createCatalogRepository(db);
    for (let i = 0; i < 20; i++) await catalog.recordVisit({ slug: 'hot' });
    await db.raw('SELECT pg_stat_force_next_flush()');
    const stats = await db.raw<{ rows: { updated: string; hot: string }[] }>(
      "SELECT n_tup_upd AS updated, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'tools'",
    );
    expect(Number(stats.rows[0]!.updated)).toBe(20);
    expect(Number(stats.rows[0]!.hot)).toBe(20);
  } finally {
    await db.destroy();
    await database.drop();
  }
});
