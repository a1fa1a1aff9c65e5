import { formatByteSize } from './byte-sizes';
import { hashPassword, isAcceptablePassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords';
import { isValidUserName } from './user-name';
import type { GroupRow, UserRow, UsersRepository } from './users-repository';

/** The group that exists from the start and keeps its name; new users' group unless the site settings choose another. */
export const DEFAULT_GROUP = 'default';
export const DEFAULT_CATEGORY_NAME = '默认分类';
const GROUP_NAME = /^[\w.-]{1,64}$/;

/** 1-64 ASCII letters, digits or _.- (a group's name appears in the API and the CLI's arguments). */
export const isValidGroupName = (name: string): boolean => GROUP_NAME.test(name);

/** A new account token, its digest (for lookup) and its seal for the row of a user. */
export interface NewAccountToken {
  token: string;
  stored: { hash: string; seal(userId: number): string };
}

/** A user's stored account token, as the rules read it back. */
export interface StoredAccountToken {
  tokenHash: string;
  sealedToken: string | null;
  createdAt: Date;
}

/**
 * What the rules need of the credentials (auth/credentials-repository.ts and auth/token-vault.ts
 * provide it). Declared here, so users/ does not import auth/, which builds on users/.
 */
export interface AccountTokenStore {
  findAccountToken(userId: number): Promise<StoredAccountToken | null>;
  replaceAccountToken(userId: number, token: NewAccountToken['stored']): Promise<StoredAccountToken>;
}
export interface AccountTokenVault {
  issue(): NewAccountToken;
  open(sealed: string, owner: { userId: number; tokenHash: string }): string | null;
}

export type UserAdminFailure =
  | 'name-invalid'
  | 'name-taken'
  | 'user-missing'
  | 'group-missing'
  | 'password-unacceptable'
  | 'group-name-invalid'
  | 'group-name-taken'
  | 'group-limit-invalid'
  | 'default-group-name'
  | 'last-admin';

/** A refusal of the user-management rules; the CLI prints `message`, the API answers its own message for `failure`. */
export class UserAdminError extends Error {
  constructor(
    readonly failure: UserAdminFailure,
    message: string,
  ) {
    super(message);
    this.name = 'UserAdminError';
  }
}

/**
 * Users, their account tokens and the membership groups: the one place for their rules, used by the
 * admin CLI, the admin API, registration and the demo.
 */
export function createUserAdmin(deps: {
  users: UsersRepository;
  credentials: AccountTokenStore;
  vault: AccountTokenVault;
  maxUploadBytes: number;
  /** The group of a user created without one (the site setting; DEFAULT_GROUP when omitted). */
  defaultGroup?: () => Promise<string>;
}) {
  const { users, credentials, vault } = deps;

  function checkGroupName(name: string): void {
    if (!isValidGroupName(name)) throw new UserAdminError('group-name-invalid', 'group name must be 1-64 letters, digits or _.-');
  }

  function checkLimits(limits: { maxFileSize?: number; quotaBytes?: number }): void {
    const { maxFileSize, quotaBytes } = limits;
    if (maxFileSize !== undefined && (!Number.isSafeInteger(maxFileSize) || maxFileSize < 1)) {
      throw new UserAdminError('group-limit-invalid', 'max-file-size must be a whole number of bytes, at least 1');
    }
    if (maxFileSize !== undefined && maxFileSize > deps.maxUploadBytes) {
      throw new UserAdminError(
        'group-limit-invalid',
        `max-file-size ${formatByteSize(maxFileSize)} is above MAX_UPLOAD_BYTES (${formatByteSize(deps.maxUploadBytes)}): raise MAX_UPLOAD_BYTES and nginx client_max_body_size first`,
      );
    }
    if (quotaBytes !== undefined && (!Number.isSafeInteger(quotaBytes) || quotaBytes < 0)) {
      throw new UserAdminError('group-limit-invalid', 'quota must be a whole number of bytes, at least 0');
    }
  }

  async function requireUser(id: number, repository: UsersRepository = users): Promise<UserRow> {
    const user = await repository.findById(id);
    if (!user) throw new UserAdminError('user-missing', `user ${id} does not exist`);
    return user;
  }

  async function requireGroup(name: string): Promise<GroupRow> {
    const group = await users.findGroupByName(name);
    if (!group) throw new UserAdminError('group-missing', `group ${name} does not exist`);
    return group;
  }

  async function passwordHash(password: string | undefined): Promise<string | null> {
    if (password === undefined) return null;
    if (!isAcceptablePassword(password)) {
      throw new UserAdminError('password-unacceptable', `a password must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`);
    }
    return hashPassword(password);
  }

  return {
    /**
     * Creates a user with its default category and account token (returned; kept sealed so the account
     * area can show it). The password is hashed before the name is looked up, so a taken name is not
     * answered sooner than a free one.
     */
    async createUser(input: { name: string; groupName?: string; password?: string; isAdmin?: boolean }): Promise<{ id: number; token: string }> {
      const name = input.name.trim();
      if (!isValidUserName(name)) throw new UserAdminError('name-invalid', 'user name must be 1-64 letters, digits or _.@-');
      const hash = await passwordHash(input.password);
      const groupName = input.groupName ?? (deps.defaultGroup ? await deps.defaultGroup() : DEFAULT_GROUP);
      const group = await users.findGroupByName(groupName);
      if (!group) throw new UserAdminError('group-missing', `group ${groupName} does not exist`);
      const taken = () => new UserAdminError('name-taken', `user ${name} already exists`);
      const { token, stored } = vault.issue();
      let id: number | null;
      try {
        id = await users.createUser({ name, groupId: group.id, isAdmin: input.isAdmin ?? false, passwordHash: hash, defaultCategoryName: DEFAULT_CATEGORY_NAME, accountToken: stored });
      } catch (error) {
        // A concurrent creator of the very same name meets the unique name rather than its key.
        if (await users.findByName(name)) throw taken();
        throw error;
      }
      if (id === null) throw taken();
      return { id, token };
    },

    /** A new account token; the old one stops at once. */
    async resetToken(userId: number): Promise<{ token: string; credential: StoredAccountToken }> {
      const { token, stored } = vault.issue();
      return { token, credential: await credentials.replaceAccountToken(userId, stored) };
    },

    /** The account token as the account area shows it: null when it cannot be shown (made before tokens were sealed, or sealed under another key). */
    async accountToken(userId: number): Promise<{ token: string | null; createdAt: Date | null }> {
      const credential = await credentials.findAccountToken(userId);
      if (!credential) return { token: null, createdAt: null };
      const token = credential.sealedToken ? vault.open(credential.sealedToken, { userId, tokenHash: credential.tokenHash }) : null;
      return { token, createdAt: credential.createdAt };
    },

    /**
     * Sets a user's password and ends their sessions, on every replica (each request looks its
     * session up): all of them when an admin sets it, all but the caller's own when the user changes it.
     */
    async setPassword(userId: number, password: string, options: { keepSessionId?: number } = {}): Promise<void> {
      await users.setPasswordHash(userId, (await passwordHash(password))!, options);
    },

    /**
     * Changes what is given of a user's group, admin flag and disabled state, in one transaction. A
     * disabled user's credentials all stop at once (and their sessions end). The last active admin
     * stays one: the active admins' rows are locked first, so two admins disabling each other at the
     * same moment cannot both succeed.
     */
    async updateUser(userId: number, changes: { groupName?: string; isAdmin?: boolean; disabled?: boolean }): Promise<UserRow> {
      const group = changes.groupName === undefined ? undefined : await requireGroup(changes.groupName);
      return users.transaction(async (tx) => {
        const losesAdminIfAdmin = changes.isAdmin === false || changes.disabled === true;
        if (losesAdminIfAdmin) await tx.lockActiveAdmins();
        const user = await requireUser(userId, tx);
        if (losesAdminIfAdmin && user.isAdmin && !user.disabled && (await tx.countActiveAdmins()) <= 1) {
          throw new UserAdminError('last-admin', `user ${user.name} is the last active admin: make another admin first`);
        }
        if (group) await tx.setGroup(user.id, group.id);
        if (changes.isAdmin !== undefined) await tx.setAdmin(user.id, changes.isAdmin);
        if (changes.disabled !== undefined) await tx.setDisabled(user.id, changes.disabled);
        return requireUser(user.id, tx);
      });
    },

    async createGroup(input: { name: string; maxFileSize: number; quotaBytes: number; keepMetadata?: boolean }): Promise<GroupRow> {
      checkGroupName(input.name);
      checkLimits(input);
      if (await users.findGroupByName(input.name)) throw new UserAdminError('group-name-taken', `group ${input.name} already exists`);
      try {
        await users.createGroup(input);
      } catch (error) {
        if (await users.findGroupByName(input.name)) throw new UserAdminError('group-name-taken', `group ${input.name} already exists`);
        throw error;
      }
      return requireGroup(input.name);
    },

    async updateGroup(name: string, changes: { rename?: string; maxFileSize?: number; quotaBytes?: number; keepMetadata?: boolean }): Promise<GroupRow> {
      const group = await requireGroup(name);
      checkLimits(changes);
      if (changes.rename !== undefined && changes.rename !== group.name) {
        checkGroupName(changes.rename);
        if (group.name === DEFAULT_GROUP) throw new UserAdminError('default-group-name', 'the default group keeps its name: new users are put in it');
        if (await users.findGroupByName(changes.rename)) throw new UserAdminError('group-name-taken', `group ${changes.rename} already exists`);
      }
      await users.updateGroup(group.id, { name: changes.rename, maxFileSize: changes.maxFileSize, quotaBytes: changes.quotaBytes, keepMetadata: changes.keepMetadata });
      return requireGroup(changes.rename ?? group.name);
    },

    requireGroup,
  };
}

export type UserAdmin = ReturnType<typeof createUserAdmin>;
