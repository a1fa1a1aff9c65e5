import type { Knex } from 'knex';
import { openTestDatabase } from '@platform/kit/testing';
import { createCredentialsRepository } from '../src/auth/credentials-repository';
import { hashToken } from '../src/auth/tokens';
import { namedQuery } from '../src/db/named-query';
import { createImagesRepository, type ImageRow, type Reservation } from '../src/images/images-repository';
import { createTestUser, realDatabaseUrl, usedBytes, userAdminFor } from './support/harness';
import { imagesMigrations } from './support/service-migrations';

let database: { db: Knex; drop(): Promise<void> };

/** The user's account token as a page's credential, confirmed now. */
async function accountCredential(db: Knex, userId: number): Promise<{ id: number; at: Date }> {
  const row = await db('credentials').where({ user_id: userId, kind: 'account' }).first('id');
  return { id: Number(row.id), at: new Date() };
}

/** The reserved row, or the refusal. */
const reservedOf = (reservation: Reservation): ImageRow => {
  if (!('reserved' in reservation)) throw new Error(`refused: ${reservation.refused}`);
  return reservation.reserved;
};

beforeAll(async () => {
  database = await openTestDatabase('images_named', imagesMigrations);
});

afterAll(async () => {
  await database.db.destroy();
  await database.drop();
});

test('when a credential is looked up, reset and looked up again, then the second lookup finds nothing (a prepared statement keeps its plan, never its rows)', async () => {
  const { db } = database;
  const user = await createTestUser(db, 'prepared_reset');
  const credentials = createCredentialsRepository(db);
  const before = await credentials.findLive(hashToken(user.token), new Date());
  expect(before?.user.id).toBe(user.id);

  const { token: replaced } = await userAdminFor(db).resetToken(user.id);
  expect(await credentials.findLive(hashToken(user.token), new Date())).toBeNull();
  expect((await credentials.findLive(hashToken(replaced), new Date()))?.user.id).toBe(user.id);
});

test('when a page is read, then its rows and exact total match the table as it is now, with and without a category filter', async () => {
  const { db } = database;
  const user = await createTestUser(db, 'prepared_list');
  const images = createImagesRepository(db);
  const [category] = await db('categories').where({ user_id: user.id }).select('id');
  const insert = (n: number) =>
    db('images').insert(
      Array.from({ length: n }, (_, i) => ({
        user_id: user.id,
        category_id: category.id,
        storage_key: `2026/11/23/prepared-${user.id}-${Date.now()}-${i}.png`,
        format: 'png',
        original_name: `p${i}.png`,
        file_size: 10,
        width: 1,
        height: 1,
        status: 'stored',
      })),
    );
  await insert(3);
  const credential = await accountCredential(db, user.id);
  const first = (await images.list({ userId: user.id, credential, status: 'stored', limit: 2, offset: 0 }))!;
  expect(first.rows).toHaveLength(2);
  expect(first.total).toBe(3);
  await insert(2);
  const again = (await images.list({ userId: user.id, credential, status: 'stored', limit: 2, offset: 0 }))!;
  expect(again.total).toBe(5);
  expect(again.rows[0]!.id).toBeGreaterThan(first.rows[0]!.id);
  const filtered = (await images.list({ userId: user.id, credential, status: 'stored', categoryId: Number(category.id), limit: 10, offset: 4 }))!;
  expect(filtered.rows).toHaveLength(1);
  expect(filtered.total).toBe(5);
});

(realDatabaseUrl ? test : test.skip)(
  'on a Postgres server, when reads run again and again, then their connection parsed each once as a named statement, with its values bound by name',
  async () => {
    const db = (await import('knex')).default({ client: 'pg', connection: (database.db.client.config as { connection: string }).connection, pool: { min: 1, max: 1 } });
    try {
      const one = namedQuery(db, 'test_group_by_name', 'SELECT id FROM groups WHERE name = :name', (name: string) => ({ name }));
      const other = namedQuery(
        db,
        'test_group_above_quota',
        'SELECT id FROM groups WHERE quota_bytes > :atLeast AND name = :name',
        (input: { name: string; atLeast: number }) => ({ name: input.name, atLeast: input.atLeast }),
      );
      expect(await one('default')).toHaveLength(1);
      expect(await one('vip')).toHaveLength(1);
      expect(await one('no such group')).toHaveLength(0);
      expect(await other({ name: 'default', atLeast: 0 })).toHaveLength(1);
      expect(await other({ name: 'default', atLeast: 1e15 })).toHaveLength(0);
      // The pool holds one connection, so this runs where the reads above ran.
      const { rows } = await db.raw("SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'test\\_%' ORDER BY name");
      expect(rows).toEqual([
        { name: 'test_group_above_quota', statement: 'SELECT id FROM groups WHERE quota_bytes > $1 AND name = $2' },
        { name: 'test_group_by_name', statement: 'SELECT id FROM groups WHERE name = $1' },
      ]);
    } finally {
      await db.destroy();
    }
  },
);

(realDatabaseUrl ? test : test.skip)(
  "on a Postgres server, when uploads are reserved and completed again and again, then both writes are named statements and each run charges, refuses and completes by its own values",
  async () => {
    const db = (await import('knex')).default({ client: 'pg', connection: (database.db.client.config as { connection: string }).connection, pool: { min: 1, max: 1 } });
    try {
      await db('groups').insert({ name: 'prepared_writes', max_file_size: 1000, quota_bytes: 1000 });
      const user = await createTestUser(db, 'prepared_writes', 'prepared_writes');
      const images = createImagesRepository(db);
      const reserve = async (n: number, fileSize: number, idempotencyKey?: string) =>
        images.reserveUpload(
          {
            userId: user.id,
            categoryId: null,
            storageKey: `2026/11/25/prepared-${n}.png`,
            thumbKey: n % 2 === 0 ? `2026/11/25/prepared-${n}.webp` : null,
            storageBackend: 'local',
            format: 'png',
            originalName: `p${n}.png`,
            fileSize,
            width: n,
            height: n + 1,
          },
          fileSize,
          idempotencyKey,
        );
      // Eight runs of each: past the five after which Postgres may plan a statement once, generically.
      const reserved = [];
      for (let n = 1; n <= 8; n += 1) reserved.push(reservedOf(await reserve(n, 100)));
      expect(reserved.map((row) => [row?.originalName, row?.width, row?.thumbKey, row?.status])).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [`p${n}.png`, n, n % 2 === 0 ? `2026/11/25/prepared-${n}.webp` : null, 'pending']),
      );
      for (const row of reserved.slice(0, 7)) expect(((await images.completeUpload(row.id)) as { status?: string } | null)?.status).toBe('stored');
      // 800 of 1000 bytes used: 201 more is refused with nothing changed, 200 fits.
      expect(await reserve(9, 201)).toEqual({ refused: 'quota' });
      expect(await usedBytes(db, user.id)).toBe(800);
      expect(await images.claimIdempotencyKey(user.id, 'prepared-key')).toBe(true);
      const keyed = reservedOf(await reserve(10, 200, 'prepared-key'));
      expect(await usedBytes(db, user.id)).toBe(1000);
      expect(((await images.completeUpload(keyed.id, { id: keyed.id })) as { status?: string } | null)?.status).toBe('stored');
      expect(await images.findIdempotencyClaim(user.id, 'prepared-key')).toEqual({ found: true, completedImageId: keyed.id });
      // Recovery took the last pending one: completing it finds nothing.
      await db('images').where({ id: reserved[7]!.id }).delete();
      expect(await images.completeUpload(reserved[7]!.id)).toBeNull();
      const { rows } = await db.raw("SELECT name FROM pg_prepared_statements WHERE name LIKE 'images\\_%' ORDER BY name");
      expect(rows.map((row: { name: string }) => row.name)).toEqual(['images_complete', 'images_complete_kept', 'images_reserve']);
      // Each has one shape, so Postgres settles on one generic plan instead of planning every run.
      const plans = await db.raw("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'images\\_%'");
      expect(plans.rows.length).toBe(3);
      for (const row of plans.rows) expect(Number(row.custom_plans)).toBeLessThanOrEqual(5);
    } finally {
      await db.destroy();
    }
  },
);

test("inside a transaction, a named query runs on the transaction's connection and sees its uncommitted rows", async () => {
  const { db } = database;
  await db
    .transaction(async (trx) => {
      await trx('groups').insert({ name: 'prepared_uncommitted', max_file_size: 1, quota_bytes: 1 });
      const named = namedQuery(trx, 'test_group_name', 'SELECT name FROM groups WHERE name = :name', (name: string) => ({ name }));
      expect(await named('prepared_uncommitted')).toEqual([{ name: 'prepared_uncommitted' }]);
      throw new Error('roll back');
    })
    .catch((error: Error) => expect(error.message).toBe('roll back'));
  expect(await db('groups').where('name', 'prepared_uncommitted')).toEqual([]);
});

(realDatabaseUrl ? test : test.skip)(
  "on a Postgres server with named statements off (a pooler that cannot carry them), when reads and an upload's writes run, then they answer the same and leave no statement on the connection",
  async () => {
    const db = (await import('knex')).default({ client: 'pg', connection: (database.db.client.config as { connection: string }).connection, pool: { min: 1, max: 1 } });
    try {
      const user = await createTestUser(db, 'prepared_unnamed');
      const credentials = createCredentialsRepository(db, { namedStatements: false });
      const images = createImagesRepository(db, { namedStatements: false });
      expect((await credentials.findLive(hashToken(user.token), new Date()))?.user.id).toBe(user.id);
      expect(await images.list({ userId: user.id, credential: await accountCredential(db, user.id), status: 'stored', limit: 20, offset: 0 })).toEqual({ rows: [], total: 0 });
      const reserved = reservedOf(
        await images.reserveUpload(
          {
            userId: user.id,
            categoryId: null,
            storageKey: '2026/11/25/unnamed.png',
            thumbKey: null,
            storageBackend: 'local',
            format: 'png',
            originalName: 'unnamed.png',
            fileSize: 10,
            width: 1,
            height: 1,
          },
          10,
        ),
      );
      expect(((await images.completeUpload(reserved.id)) as { status?: string } | null)?.status).toBe('stored');
      expect(await usedBytes(db, user.id)).toBe(10);
      const { rows } = await db.raw('SELECT count(*)::int AS statements FROM pg_prepared_statements');
      expect(rows).toEqual([{ statements: 0 }]);
    } finally {
      await db.destroy();
    }
  },
);
