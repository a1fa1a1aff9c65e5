import type { Knex } from 'knex';
import { generateToken, hashToken } from '../auth/tokens';
import { createUsersRepository } from './users-repository';

export const DEFAULT_GROUP = 'default';
export const DEFAULT_CATEGORY_NAME = '默认分类';

/** Creates a user with its default category; the token is returned once and stored only as a digest. */
export async function createUser(db: Knex, input: { name: string; groupName?: string }): Promise<{ id: number; token: string }> {
  const users = createUsersRepository(db);
  const name = input.name.trim();
  if (!/^[\p{L}\p{N}_.@-]{1,64}$/u.test(name)) throw new Error('user name must be 1-64 letters, digits or _.@-');
  const groupName = input.groupName ?? DEFAULT_GROUP;
  const group = await users.findGroupByName(groupName);
  if (!group) throw new Error(`group ${groupName} does not exist`);
  if (await users.findByName(name)) throw new Error(`user ${name} already exists`);
  const token = generateToken();
  try {
    const id = await users.createUser({ name, tokenHash: hashToken(token), groupId: group.id, defaultCategoryName: DEFAULT_CATEGORY_NAME });
    return { id, token };
  } catch (error) {
    // A concurrent creator may have won the unique name between the check and the insert.
    if (await users.findByName(name)) throw new Error(`user ${name} already exists`);
    throw error;
  }
}

export async function resetToken(db: Knex, name: string): Promise<string> {
  const users = createUsersRepository(db);
  const user = await users.findByName(name);
  if (!user) throw new Error(`user ${name} does not exist`);
  const token = generateToken();
  await users.setTokenHash(user.id, hashToken(token));
  return token;
}
