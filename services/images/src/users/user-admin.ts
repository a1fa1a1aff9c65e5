import type { CredentialRow, CredentialsRepository } from '../auth/credentials-repository';
import { hashPassword, isAcceptablePassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/passwords';
import type { TokenVault } from '../auth/token-vault';
import { generateToken, hashToken } from '../auth/tokens';
import { formatByteSize } from './byte-sizes';
import type { GroupRow, UserRow, UsersRepository } from './users-repository';

export const DEFAULT_GROUP = 'default';
export const DEFAULT_CATEGORY_NAME = '默认分类';
const USER_NAME = /^[\p{L}\p{N}_.@-]{1,64}$/u;
const GROUP_NAME = /^[\w.-]{1,64}$/;

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

export function isValidUserName(name: string): boolean {
  return USER_NAME.test(name);
}

/**
 * Users, their account tokens and the membership groups: the one place for their rules, used by the
 * admin CLI, the admin API, registration and the demo.
 */
export function createUserAdmin(deps: { users: UsersRepository; credentials: CredentialsRepository; vault: TokenVault; maxUploadBytes: number }) {
  const { users, credentials, vault } = deps;

  function checkGroupName(name: string): void {
    if (!GROUP_NAME.test(name)) throw new UserAdminError('group-name-invalid', 'group name must be 1-64 letters, digits or _.-');
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

  async function requireUser(id: number): Promise<UserRow> {
    const user = await users.findById(id);
    if (!user) throw new UserAdminError('user-missing', `user ${id} does not exist`);
    return user;
  }

  async function requireGroup(name: string): Promise<GroupRow> {
    const group = await users.findGroupByName(name);
    if (!group) throw new UserAdminError('group-missing', `group ${name} does not exist`);
    return group;
  }

  const newAccountToken = () => {
    const token = generateToken();
    return { token, stored: { hash: hashToken(token), sealed: vault.seal(token) } };
  };

  async function passwordHash(password: string | undefined): Promise<string | null> {
    if (password === undefined) return null;
    if (!isAcceptablePassword(password)) {
      throw new UserAdminError('password-unacceptable', `a password must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`);
    }
    return hashPassword(password);
  }

  return {
    /** Creates a user with its default category and account token (returned; kept sealed so the account area can show it). */
    async createUser(input: { name: string; groupName?: string; password?: string; isAdmin?: boolean }): Promise<{ id: number; token: string }> {
      const name = input.name.trim();
      if (!isValidUserName(name)) throw new UserAdminError('name-invalid', 'user name must be 1-64 letters, digits or _.@-');
      const groupName = input.groupName ?? DEFAULT_GROUP;
      const group = await users.findGroupByName(groupName);
      if (!group) throw new UserAdminError('group-missing', `group ${groupName} does not exist`);
      if (await users.findByName(name)) throw new UserAdminError('name-taken', `user ${name} already exists`);
      const hash = await passwordHash(input.password);
      const { token, stored } = newAccountToken();
      try {
        const id = await users.createUser({ name, groupId: group.id, isAdmin: input.isAdmin ?? false, passwordHash: hash, defaultCategoryName: DEFAULT_CATEGORY_NAME, accountToken: stored });
        return { id, token };
      } catch (error) {
        // A concurrent creator may have won the unique name between the check and the insert.
        if (await users.findByName(name)) throw new UserAdminError('name-taken', `user ${name} already exists`);
        throw error;
      }
    },

    /** A new account token; the old one stops at once. */
    async resetToken(userId: number): Promise<{ token: string; credential: CredentialRow }> {
      const { token, stored } = newAccountToken();
      return { token, credential: await credentials.replaceAccountToken(userId, stored) };
    },

    /** The account token as the account area shows it: null when it cannot be shown (made before tokens were sealed, or sealed under another key). */
    async accountToken(userId: number): Promise<{ token: string | null; createdAt: Date | null }> {
      const credential = await credentials.findAccountToken(userId);
      if (!credential) return { token: null, createdAt: null };
      return { token: credential.sealedToken ? vault.open(credential.sealedToken) : null, createdAt: credential.createdAt };
    },

    async setPassword(userId: number, password: string): Promise<void> {
      await users.setPasswordHash(userId, (await passwordHash(password))!);
    },

    /**
     * Changes what is given of a user's group, admin flag and disabled state. A disabled user's
     * credentials all stop at once (and their sessions end). The last active admin stays one.
     */
    async updateUser(userId: number, changes: { groupName?: string; isAdmin?: boolean; disabled?: boolean }): Promise<UserRow> {
      const user = await requireUser(userId);
      const group = changes.groupName === undefined ? undefined : await requireGroup(changes.groupName);
      const losesAdmin = user.isAdmin && !user.disabled && (changes.isAdmin === false || changes.disabled === true);
      if (losesAdmin && (await users.countActiveAdmins()) <= 1) {
        throw new UserAdminError('last-admin', `user ${user.name} is the last active admin: make another admin first`);
      }
      if (group) await users.setGroup(user.id, group.id);
      if (changes.isAdmin !== undefined) await users.setAdmin(user.id, changes.isAdmin);
      if (changes.disabled !== undefined) await users.setDisabled(user.id, changes.disabled);
      return requireUser(user.id);
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
