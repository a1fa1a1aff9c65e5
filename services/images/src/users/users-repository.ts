import type { Knex } from 'knex';

export interface UserRow {
  id: number;
  name: string;
  groupId: number;
  groupName: string;
  usedBytes: number;
  maxFileSize: number;
  quotaBytes: number;
  createdAt: Date;
}

export interface GroupRow {
  id: number;
  name: string;
  maxFileSize: number;
  quotaBytes: number;
}

type Db = Knex | Knex.Transaction;

const userColumns = [
  'u.id',
  'u.name',
  'u.group_id',
  'g.name as group_name',
  'u.used_bytes',
  'g.max_file_size',
  'g.quota_bytes',
  'u.created_at',
];

function toUser(row: Record<string, unknown>): UserRow {
  return {
    id: Number(row.id),
    name: String(row.name),
    groupId: Number(row.group_id),
    groupName: String(row.group_name),
    usedBytes: Number(row.used_bytes),
    maxFileSize: Number(row.max_file_size),
    quotaBytes: Number(row.quota_bytes),
    createdAt: row.created_at as Date,
  };
}

function toGroup(row: Record<string, unknown>): GroupRow {
  return {
    id: Number(row.id),
    name: String(row.name),
    maxFileSize: Number(row.max_file_size),
    quotaBytes: Number(row.quota_bytes),
  };
}

export function createUsersRepository(db: Knex) {
  const users = (conn: Db = db) => conn('users as u').join('groups as g', 'g.id', 'u.group_id');

  return {
    async findByTokenHash(tokenHash: string): Promise<UserRow | null> {
      const row = await users().where('u.token_hash', tokenHash).first(userColumns);
      return row ? toUser(row) : null;
    },

    async findById(id: number): Promise<UserRow | null> {
      const row = await users().where('u.id', id).first(userColumns);
      return row ? toUser(row) : null;
    },

    async findByName(name: string): Promise<UserRow | null> {
      const row = await users().where('u.name', name).first(userColumns);
      return row ? toUser(row) : null;
    },

    async listUsers(): Promise<UserRow[]> {
      const rows = await users().orderBy('u.id').select(userColumns);
      return rows.map(toUser);
    },

    /** Creates the user and its default category in one transaction. */
    async createUser(input: { name: string; tokenHash: string; groupId: number; defaultCategoryName: string }): Promise<number> {
      return db.transaction(async (trx) => {
        const [created] = await trx('users')
          .insert({ name: input.name, token_hash: input.tokenHash, group_id: input.groupId })
          .returning('id');
        const userId = Number((created as { id: unknown }).id);
        await trx('categories').insert({ user_id: userId, name: input.defaultCategoryName, is_default: true });
        return userId;
      });
    },

    async setTokenHash(userId: number, tokenHash: string): Promise<void> {
      await db('users').where({ id: userId }).update({ token_hash: tokenHash });
    },

    async setGroup(userId: number, groupId: number): Promise<void> {
      await db('users').where({ id: userId }).update({ group_id: groupId });
    },

    async findGroupByName(name: string): Promise<GroupRow | null> {
      const row = await db('groups').where({ name }).first();
      return row ? toGroup(row) : null;
    },

    async listGroups(): Promise<GroupRow[]> {
      const rows = await db('groups').orderBy('id');
      return rows.map(toGroup);
    },

    async createGroup(input: { name: string; maxFileSize: number; quotaBytes: number }): Promise<number> {
      const [created] = await db('groups')
        .insert({ name: input.name, max_file_size: input.maxFileSize, quota_bytes: input.quotaBytes })
        .returning('id');
      return Number((created as { id: unknown }).id);
    },

    async updateGroup(id: number, changes: { name?: string; maxFileSize?: number; quotaBytes?: number }): Promise<void> {
      const patch: Record<string, unknown> = {};
      if (changes.name !== undefined) patch.name = changes.name;
      if (changes.maxFileSize !== undefined) patch.max_file_size = changes.maxFileSize;
      if (changes.quotaBytes !== undefined) patch.quota_bytes = changes.quotaBytes;
      if (Object.keys(patch).length > 0) await db('groups').where({ id }).update(patch);
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
