import { AppError } from '../errors/app-error';
import { UserAdminError, type UserAdmin } from './user-admin';
import { userAdminRefusal } from './user-admin-refusal';
import type { GroupRow, UserRow, UsersRepository } from './users-repository';

/** Who calls an admin operation: the signed-in admin and the session they call with (auth's Principal fits). */
export interface AdminCaller {
  user: UserRow;
  credential: { id: number };
}

/** Admin users' operations through the API (the routes check that the caller is a signed-in admin). */
export function createAdminService(deps: { users: UsersRepository; userAdmin: UserAdmin; formatTime: (date: Date) => string }) {
  const { users, userAdmin } = deps;

  const userView = (user: UserRow) => ({
    id: user.id,
    username: user.name,
    group: user.groupName,
    is_admin: user.isAdmin,
    disabled: user.disabled,
    uploads_banned: user.uploadsBanned,
    used_bytes: user.usedBytes,
    quota_bytes: user.quotaBytes,
    max_file_size: user.maxFileSize,
    create_time: deps.formatTime(user.createdAt),
  });
  const groupView = (group: GroupRow) => ({
    id: group.id,
    name: group.name,
    max_file_size: group.maxFileSize,
    quota_bytes: group.quotaBytes,
    keep_metadata: group.keepMetadata,
    user_count: group.userCount,
  });

  /** The rules' refusals as envelope messages. */
  async function applying<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UserAdminError) throw userAdminRefusal(error);
      throw error;
    }
  }

  async function groupNameOf(id: number): Promise<string> {
    const group = await users.findGroupById(id);
    if (!group) throw new AppError('groupNotFound', 200);
    return group.name;
  }

  return {
    async listUsers(request: { page: number; limit: number; keyword?: string }) {
      const { rows, total } = await users.pageUsers({ keyword: request.keyword, limit: request.limit, offset: (request.page - 1) * request.limit });
      return { list: rows.map(userView), total, page: request.page, limit: request.limit };
    },

    createUser(input: { name: string; password: string; groupId?: number; isAdmin?: boolean }) {
      return applying(async () => {
        const groupName = input.groupId === undefined ? undefined : await groupNameOf(input.groupId);
        const created = await userAdmin.createUser({ name: input.name, password: input.password, groupName, isAdmin: input.isAdmin });
        return userView((await users.findById(created.id))!);
      });
    },

    /**
     * The caller cannot disable or demote themselves: an admin locked out of their own account helps
     * nobody. A password set here ends the user's sessions (the caller's own excepted).
     */
    updateUser(caller: AdminCaller, id: number, changes: { groupId?: number; isAdmin?: boolean; disabled?: boolean; password?: string }) {
      return applying(async () => {
        if (id === caller.user.id && (changes.disabled === true || changes.isAdmin === false)) throw new AppError('lastAdmin', 200);
        const groupName = changes.groupId === undefined ? undefined : await groupNameOf(changes.groupId);
        if (!(await users.findById(id))) throw new AppError('userNotFound', 200);
        if (changes.password !== undefined) {
          await userAdmin.setPassword(id, changes.password, id === caller.user.id ? { keepSessionId: caller.credential.id } : {});
        }
        return userView(await userAdmin.updateUser(id, { groupName, isAdmin: changes.isAdmin, disabled: changes.disabled }));
      });
    },

    /** Bans the user's uploads (or lifts the ban): they can still sign in, list and delete. */
    async setUploadsBanned(id: number, banned: boolean) {
      if (!(await users.setUploadsBanned(id, banned))) throw new AppError('userNotFound', 200);
      return userView((await users.findById(id))!);
    },

    async listGroups() {
      return { list: (await users.listGroups()).map(groupView) };
    },

    createGroup(input: { name: string; maxFileSize: number; quotaBytes: number; keepMetadata?: boolean }) {
      return applying(async () => groupView(await userAdmin.createGroup(input)));
    },

    updateGroup(id: number, changes: { name?: string; maxFileSize?: number; quotaBytes?: number; keepMetadata?: boolean }) {
      return applying(async () =>
        groupView(await userAdmin.updateGroup(await groupNameOf(id), { rename: changes.name, maxFileSize: changes.maxFileSize, quotaBytes: changes.quotaBytes, keepMetadata: changes.keepMetadata })),
      );
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
