import type { Knex } from 'knex';
import { createIndexConcurrently, dropIndexConcurrently, lockSafe, setNotNull } from '@platform/kit';
import { userNameKey } from '../src/users/user-name';

/**
 * User names become unique regardless of case, surrounding spaces and Unicode compatibility forms:
 * `users.name_key` (userNameKey of the name) with a unique index. Before it, `ALICE` could exist
 * beside `alice` and share her sign-in counter.
 *
 * Where existing names collide, the oldest user (lowest id) keeps the name and each later one is
 * renamed `<name>-<id>`; their tokens, sessions and password are unchanged, so they sign in with the
 * new name. Each rename is reported on stderr, one line each, for the operator to tell the users.
 */
// Steps of their own: each user's row is locked only for its own update, the index is built concurrently.
export const config = { transaction: false };

export async function up(db: Knex): Promise<void> {
  await lockSafe(db, (trx) => trx.raw('ALTER TABLE users ADD COLUMN IF NOT EXISTS name_key text'));
  const users: { id: number | string; name: string }[] = await db('users').orderBy('id').select('id', 'name');
  const keyOwner = new Map<string, { id: number; name: string }>();
  for (const user of users) keyOwner.set(userNameKey(user.name), keyOwner.get(userNameKey(user.name)) ?? { id: Number(user.id), name: user.name });
  for (const user of users) {
    const id = Number(user.id);
    let key = userNameKey(user.name);
    const owner = keyOwner.get(key)!;
    let name = user.name;
    if (owner.id !== id) {
      for (let attempt = 0; keyOwner.has(userNameKey(name)); attempt += 1) {
        const suffix = attempt === 0 ? `-${id}` : `-${id}-${attempt}`;
        name = `${user.name.trim().slice(0, 64 - suffix.length)}${suffix}`;
      }
      key = userNameKey(name);
      keyOwner.set(key, { id, name });
      process.stderr.write(
        `migration user_name_key: renamed user ${id} from ${JSON.stringify(user.name)} to ${JSON.stringify(name)}: ` +
          `user ${owner.id} ${JSON.stringify(owner.name)} has the same name but for case, spaces or Unicode form\n`,
      );
    }
    await db('users').where({ id }).update({ name, name_key: key });
  }
  await setNotNull(db, 'users', 'name_key');
  await createIndexConcurrently(db, { name: 'users_name_key_unique', table: 'users', definition: '(name_key)', unique: true });
}

export async function down(db: Knex): Promise<void> {
  await dropIndexConcurrently(db, 'users_name_key_unique');
  await lockSafe(db, (trx) => trx.raw('ALTER TABLE users DROP COLUMN IF EXISTS name_key'));
}
