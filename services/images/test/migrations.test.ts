import { createHash } from 'node:crypto';
import { databaseTarget, migrateToLatest, openDb } from '@platform/kit';
import { createTestDatabase } from '@platform/kit/testing';
import { migrationSource } from '../src/db/migration-source';
import { createCredentialsRepository } from '../src/auth/credentials-repository';
import { createTestUser } from './support/harness';

async function withFreshDatabase(work: (db: Awaited<ReturnType<typeof openDb>>) => Promise<void>): Promise<void> {
  const database = await createTestDatabase('images');
  const db = await openDb(databaseTarget(database.url, process.cwd()), { migrationSource });
  try {
    await work(db);
  } finally {
    await db.destroy();
    await database.drop();
  }
}

test('when the migrations are rolled back and re-applied, then the schema and default groups come back', async () => {
  await withFreshDatabase(async (db) => {
    await migrateToLatest(db);
    await db.migrate.rollback({ migrationSource }, true);
    expect(await db.schema.hasTable('images')).toBe(false);
    await migrateToLatest(db);
    expect(await db.schema.hasTable('images')).toBe(true);
    expect((await db('groups').orderBy('id').select('name', 'keep_metadata')).map((row) => [row.name, row.keep_metadata])).toEqual([
      ['default', false],
      ['vip', false],
    ]);
  });
});

test('when a database from before accounts is migrated, then its users keep their tokens (as account tokens, not showable until reset)', async () => {
  await withFreshDatabase(async (db) => {
    // The two migrations that existed before accounts.
    await db.migrate.up({ migrationSource });
    await db.migrate.up({ migrationSource });
    const token = 'a-token-made-before-accounts-0123456789abcdef';
    const group = await db('groups').where({ name: 'default' }).first('id');
    await db('users').insert({ name: 'old', token_hash: createHash('sha256').update(token).digest('hex'), group_id: group.id });

    await migrateToLatest(db);

    const found = await createCredentialsRepository(db).findLive(createHash('sha256').update(token).digest('hex'), new Date());
    expect(found).toMatchObject({ credential: { kind: 'account', sealedToken: null }, user: { name: 'old', hasPassword: false, isAdmin: false, disabled: false } });
    expect(await db.schema.hasColumn('users', 'token_hash')).toBe(false);
  });
});

test('when users whose names differ only in case, spaces or Unicode form exist, then the oldest keeps the name, the others are renamed and reported, and all still sign in by token', async () => {
  await withFreshDatabase(async (db) => {
    // Every migration before names became unique regardless of case.
    const before = (await migrationSource.getMigrations([])).filter((name) => name < '20261127010000_user_name_key');
    for (let i = 0; i < before.length; i += 1) await db.migrate.up({ migrationSource });
    const group = await db('groups').where({ name: 'default' }).first('id');
    for (const name of ['alice', 'ALICE', 'ａｌｉｃｅ', 'bob', 'ALICE-2']) {
      const [row] = await db('users').insert({ name, group_id: group.id }).returning('id');
      await db('credentials').insert({ user_id: row.id, kind: 'account', token_hash: createHash('sha256').update(`token-of-${name}`).digest('hex') });
    }
    const reported: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((line) => {
      reported.push(String(line));
      return true;
    });
    try {
      await migrateToLatest(db);
    } finally {
      write.mockRestore();
    }

    expect((await db('users').orderBy('id').select('id', 'name', 'name_key')).map((row) => ({ ...row, id: Number(row.id) }))).toEqual([
      { id: 1, name: 'alice', name_key: 'alice' },
      { id: 2, name: 'ALICE-2-1', name_key: 'alice-2-1' },
      { id: 3, name: 'ａｌｉｃｅ-3', name_key: 'alice-3' },
      { id: 4, name: 'bob', name_key: 'bob' },
      { id: 5, name: 'ALICE-2', name_key: 'alice-2' },
    ]);
    expect(reported).toEqual([
      'migration user_name_key: renamed user 2 from "ALICE" to "ALICE-2-1": user 1 "alice" has the same name but for case, spaces or Unicode form\n',
      'migration user_name_key: renamed user 3 from "ａｌｉｃｅ" to "ａｌｉｃｅ-3": user 1 "alice" has the same name but for case, spaces or Unicode form\n',
    ]);
    const found = await createCredentialsRepository(db).findLive(createHash('sha256').update('token-of-ALICE').digest('hex'), new Date());
    expect(found?.user).toMatchObject({ id: 2, name: 'ALICE-2-1' });
    await expect(db('users').insert({ name: 'Bob', name_key: 'bob', group_id: group.id })).rejects.toThrow(/users_name_key_unique/);
  });
});

test('when a database from before deletion nonces is migrated, then its images keep none (their links are signed as before) and new images get a random one', async () => {
  await withFreshDatabase(async (db) => {
    await migrateToLatest(db);
    // Back to before deletion nonces: that migration and every later one.
    const since = (await migrationSource.getMigrations([])).filter((name) => name >= '20261127110000_deletion_nonce');
    for (let i = 0; i < since.length; i += 1) await db.migrate.down({ migrationSource });
    expect(await db.schema.hasColumn('images', 'deletion_nonce')).toBe(false);
    const user = await createTestUser(db);
    const category = await db('categories').where({ user_id: user.id, is_default: true }).first('id');
    const image = (key: string) => ({ user_id: user.id, category_id: category.id, storage_key: key, format: 'png', original_name: `${key}.png`, file_size: 1, width: 1, height: 1 });
    await db('images').insert(image('old'));

    await migrateToLatest(db);
    await db('images').insert([image('new1'), image('new2')]);

    const nonces = await db('images').orderBy('id').pluck('deletion_nonce');
    expect(nonces).toEqual([null, expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect(nonces[1]).not.toBe(nonces[2]);
  });
});
