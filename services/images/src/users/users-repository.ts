import type { Knex } from 'knex';
import { userNameKey } from './user-name';

export interface UserRow {
  id: number;
  name: string;
  groupId: number;
  groupName: string;
  usedBytes: number;
  maxFileSize: number;
  quotaBytes: number;
  /** The group's choice: stored originals keep their EXIF/XMP. */
  keepMetadata: boolean;
  isAdmin: boolean;
  disabled: boolean;
  /** An admin banned the user's uploads: they can still sign in, list and delete. */
  uploadsBanned: boolean;
  hasPassword: boolean;
  createdAt: Date;
}

export interface GroupRow {
  id: number;
  name: string;
  maxFileSize: number;
  quotaBytes: number;
  keepMetadata: boolean;
  userCount: number;
}

export interface NewUser {
  name: string;
  groupId: number;
  isAdmin: boolean;
  passwordHash: string | null;
  defaultCategoryName: string;
  /** The account token's digest, and its sealed copy, which is bound to the new user's id. */
  accountToken: { hash: string; seal(userId: number): string };
}

type Db = Knex | Knex.Transaction;

export const userColumns = [
  'u.id',
  'u.name',
  'u.group_id',
  'g.name as group_name',
  'u.used_bytes',
  'g.max_file_size',
  'g.quota_bytes',
  'g.keep_metadata',
  'u.is_admin',
  'u.disabled_at',
  'u.uploads_banned_at',
  'u.password_hash',
  'u.created_at',
];

export function toUser(row: Record<string, unknown>): UserRow {
  return {
    id: Number(row.id),
    name: String(row.name),
    groupId: Number(row.group_id),
    groupName: String(row.group_name),
    usedBytes: Number(row.used_bytes),
    maxFileSize: Number(row.max_file_size),
    quotaBytes: Number(row.quota_bytes),
    keepMetadata: Boolean(row.keep_metadata),
    isAdmin: Boolean(row.is_admin),
    disabled: row.disabled_at !== null && row.disabled_at !== undefined,
    uploadsBanned: row.uploads_banned_at !== null && row.uploads_banned_at !== undefined,
    hasPassword: row.password_hash !== null && row.password_hash !== undefined,
    createdAt: row.created_at as Date,
  };
}

function toGroup(row: Record<string, unknown>): GroupRow {
  return {
    id: Number(row.id),
    name: String(row.name),
    maxFileSize: Number(row.max_file_size),
    quotaBytes: Number(row.quota_bytes),
    keepMetadata: Boolean(row.keep_metadata),
    userCount: Number(row.user_count ?? 0),
  };
}

/** LIKE pattern for a literal substring: %, _ and the escape character itself lose their meaning. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Users and groups. `db` may be a transaction: `transaction` gives the work a repository bound to one. */
export function createUsersRepository(db: Db) {
  const users = (conn: Db = db) => conn('users as u').join('groups as g', 'g.id', 'u.group_id');
  const groups = () => db('groups as g').select('g.*', db.raw('(SELECT count(*) FROM users u WHERE u.group_id = g.id) AS user_count'));

  return {
    /** Runs `work` in one transaction, with a repository whose every statement is part of it. */
    transaction<T>(work: (repository: UsersRepository) => Promise<T>): Promise<T> {
      return db.transaction((trx) => work(createUsersRepository(trx)));
    },

    /**
     * Locks the rows of the active admins until the transaction ends (inside `transaction`): two
     * changes that could each take away an admin wait for each other, so the last one is kept.
     */
    async lockActiveAdmins(): Promise<void> {
      await db('users').where({ is_admin: true }).whereNull('disabled_at').orderBy('id').forUpdate().select('id');
    },

    async findById(id: number): Promise<UserRow | null> {
      const row = await users().where('u.id', id).first(userColumns);
      return row ? toUser(row) : null;
    },

    /** The user with this name, however it is cased, spaced or Unicode-composed (see userNameKey). */
    async findByName(name: string): Promise<UserRow | null> {
      const row = await users().where('u.name_key', userNameKey(name)).first(userColumns);
      return row ? toUser(row) : null;
    },

    /** The user and their password hash, for sign-in (by name as findByName finds it). */
    async findForSignIn(name: string): Promise<{ user: UserRow; passwordHash: string | null } | null> {
      const row = await users().where('u.name_key', userNameKey(name)).first(userColumns);
      return row ? { user: toUser(row), passwordHash: (row.password_hash as string | null) ?? null } : null;
    },

    async listUsers(): Promise<UserRow[]> {
      const rows = await users().orderBy('u.id').select(userColumns);
      return rows.map(toUser);
    },

    /** A page of users, by id; `keyword` is a case-insensitive substring of the name. */
    async pageUsers(options: { keyword?: string; limit: number; offset: number }): Promise<{ rows: UserRow[]; total: number }> {
      const base = users();
      if (options.keyword) base.whereRaw("lower(u.name) LIKE lower(?) ESCAPE '\\'", [containsPattern(options.keyword)]);
      const [counted] = await base.clone().clearSelect().count({ count: '*' });
      const total = Number((counted as { count: unknown } | undefined)?.count ?? 0);
      const rows = await base.clone().orderBy('u.id').limit(options.limit).offset(options.offset).select(userColumns);
      return { rows: rows.map(toUser), total };
    },

    /** Creates the user, its default category and its account token in one transaction. */
    /**
     * Creates the user, its default category and its account token in one transaction; null when the
     * name (as userNameKey compares names) is taken, by a concurrent creator too.
     */
    async createUser(input: NewUser): Promise<number | null> {
      return db.transaction(async (trx) => {
        const [created] = await trx('users')
          .insert({ name: input.name, name_key: userNameKey(input.name), group_id: input.groupId, is_admin: input.isAdmin, password_hash: input.passwordHash })
          .onConflict('name_key')
          .ignore()
          .returning('id');
        if (!created) return null;
        const userId = Number((created as { id: unknown }).id);
        await trx('categories').insert({ user_id: userId, name: input.defaultCategoryName, is_default: true });
        await trx('credentials').insert({ user_id: userId, kind: 'account', token_hash: input.accountToken.hash, token_ciphertext: input.accountToken.seal(userId) });
        return userId;
      });
    },

    /**
     * Sets the password hash and, in the same transaction, ends the user's sessions: all of them, or
     * all but `keepSessionId` (the session that changed its own password). Null keeps every session:
     * the same password stored at a new cost.
     */
    async setPasswordHash(userId: number, passwordHash: string, sessions: { keepSessionId?: number } | null): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('users').where({ id: userId }).update({ password_hash: passwordHash });
        if (sessions === null) return;
        const ended = trx('credentials').where({ user_id: userId, kind: 'session' });
        if (sessions.keepSessionId !== undefined) ended.whereNot('id', sessions.keepSessionId);
        await ended.delete();
      });
    },

    async setGroup(userId: number, groupId: number): Promise<void> {
      await db('users').where({ id: userId }).update({ group_id: groupId });
    },

    async setAdmin(userId: number, isAdmin: boolean): Promise<void> {
      await db('users').where({ id: userId }).update({ is_admin: isAdmin });
    },

    /** Disabling also ends the user's sessions, so that enabling again does not revive them. */
    async setDisabled(userId: number, disabled: boolean): Promise<void> {
      // Inside `transaction` this is a savepoint of the caller's transaction.
      await db.transaction(async (trx) => {
        await trx('users').where({ id: userId }).update({ disabled_at: disabled ? trx.fn.now() : null });
        if (disabled) await trx('credentials').where({ user_id: userId, kind: 'session' }).delete();
      });
    },

    /** Bans (or allows again) the user's uploads; false when there is no such user. */
    async setUploadsBanned(userId: number, banned: boolean): Promise<boolean> {
      const changed = await db('users').where({ id: userId }).update({ uploads_banned_at: banned ? db.fn.now() : null });
      return changed > 0;
    },

    async countActiveAdmins(): Promise<number> {
      const row = await db('users').where({ is_admin: true }).whereNull('disabled_at').count({ count: '*' }).first();
      return Number((row as { count: unknown } | undefined)?.count ?? 0);
    },

    async findGroupByName(name: string): Promise<GroupRow | null> {
      const row = await groups().where('g.name', name).first();
      return row ? toGroup(row) : null;
    },

    async findGroupById(id: number): Promise<GroupRow | null> {
      const row = await groups().where('g.id', id).first();
      return row ? toGroup(row) : null;
    },

    async listGroups(): Promise<GroupRow[]> {
      const rows = await groups().orderBy('g.id');
      return rows.map(toGroup);
    },

    async createGroup(input: { name: string; maxFileSize: number; quotaBytes: number; keepMetadata?: boolean }): Promise<number> {
      const [created] = await db('groups')
        .insert({ name: input.name, max_file_size: input.maxFileSize, quota_bytes: input.quotaBytes, keep_metadata: input.keepMetadata ?? false })
        .returning('id');
      return Number((created as { id: unknown }).id);
    },

    async updateGroup(id: number, changes: { name?: string; maxFileSize?: number; quotaBytes?: number; keepMetadata?: boolean }): Promise<void> {
      const patch: Record<string, unknown> = {};
      if (changes.name !== undefined) patch.name = changes.name;
      if (changes.maxFileSize !== undefined) patch.max_file_size = changes.maxFileSize;
      if (changes.quotaBytes !== undefined) patch.quota_bytes = changes.quotaBytes;
      if (changes.keepMetadata !== undefined) patch.keep_metadata = changes.keepMetadata;
      if (Object.keys(patch).length > 0) await db('groups').where({ id }).update(patch);
    },
  };
}

export interface UsersRepository extends ReturnType<typeof createUsersRepository> {}
