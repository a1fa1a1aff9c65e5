import type { Knex } from 'knex';
import { openTestDatabase } from '@platform/kit/testing';
import { createTestUser, usedBytes } from './support/harness';
import { imagesMigrations } from './support/service-migrations';

// charge_upload (migrations/20261127135722_charge_upload) holds an upload's quota rules: the size
// limit of the received file, the quota against the stored bytes, and no charge for a disabled user.

let database: { db: Knex; drop(): Promise<void> };
beforeAll(async () => {
  database = await openTestDatabase('images_charge', imagesMigrations);
});
afterAll(async () => {
  await database.db.destroy();
  await database.drop();
});

const charge = async (userId: number, receivedSize: number, storedSize: number): Promise<string> => {
  const { rows } = await database.db.raw('SELECT charge_upload(?::bigint, ?::bigint, ?::bigint) AS outcome', [userId, receivedSize, storedSize]);
  return rows[0].outcome;
};

/** A user in a group of their own: files up to 100 bytes, 250 bytes in all. */
async function userWithLimits() {
  const group = `charge_${Math.random().toString(16).slice(2, 10)}`;
  await database.db('groups').insert({ name: group, max_file_size: 100, quota_bytes: 250 });
  return createTestUser(database.db, undefined, group);
}

test('when uploads fill the quota, then each is charged up to exactly the quota, and the one past it is refused with nothing charged', async () => {
  const user = await userWithLimits();
  expect(await charge(user.id, 100, 100)).toBe('charged');
  expect(await charge(user.id, 100, 100)).toBe('charged');
  expect(await charge(user.id, 60, 51)).toBe('over_quota');
  expect(await usedBytes(database.db, user.id)).toBe(200);
  expect(await charge(user.id, 60, 50)).toBe('charged');
  expect(await usedBytes(database.db, user.id)).toBe(250);
  expect(await charge(user.id, 1, 1)).toBe('over_quota');
  expect(await usedBytes(database.db, user.id)).toBe(250);
});

test('when the received file is over the size limit, then it is refused as too large even if what is stored would fit, and at the limit it is charged', async () => {
  const user = await userWithLimits();
  expect(await charge(user.id, 101, 10)).toBe('too_large');
  expect(await usedBytes(database.db, user.id)).toBe(0);
  expect(await charge(user.id, 100, 10)).toBe('charged');
  expect(await usedBytes(database.db, user.id)).toBe(10);
});

test('when the user is disabled or does not exist, then nothing is charged, and once enabled again the charge is made', async () => {
  const user = await userWithLimits();
  await database.db('users').where({ id: user.id }).update({ disabled_at: new Date() });
  expect(await charge(user.id, 10, 10)).toBe('disabled');
  expect(await usedBytes(database.db, user.id)).toBe(0);
  expect(await charge(-1, 10, 10)).toBe('disabled');
  await database.db('users').where({ id: user.id }).update({ disabled_at: null });
  expect(await charge(user.id, 10, 10)).toBe('charged');
});

test("when the group's quota is raised, then the next charge is held to the new quota", async () => {
  const user = await userWithLimits();
  expect(await charge(user.id, 100, 100)).toBe('charged');
  expect(await charge(user.id, 100, 100)).toBe('charged');
  expect(await charge(user.id, 100, 100)).toBe('over_quota');
  const { group_id: groupId } = await database.db('users').where({ id: user.id }).first('group_id');
  await database.db('groups').where({ id: groupId }).update({ quota_bytes: 300 });
  expect(await charge(user.id, 100, 100)).toBe('charged');
  expect(await usedBytes(database.db, user.id)).toBe(300);
});

test('when many uploads charge at once, then together they never pass the quota', async () => {
  const user = await userWithLimits();
  const outcomes = await Promise.all(Array.from({ length: 10 }, () => charge(user.id, 40, 40)));
  expect(outcomes.filter((outcome) => outcome === 'charged')).toHaveLength(6);
  expect(outcomes.filter((outcome) => outcome === 'over_quota')).toHaveLength(4);
  expect(await usedBytes(database.db, user.id)).toBe(240);
});
