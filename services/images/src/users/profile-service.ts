import type { UserRow, UsersRepository } from './users-repository';

export function createProfileService(deps: { users: UsersRepository; recycleRetentionDays: number }) {
  return {
    /** The user's group, limits and usage, read fresh (the authenticated row may be a moment old). */
    async profile(user: UserRow) {
      const fresh = (await deps.users.findById(user.id)) ?? user;
      return {
        username: fresh.name,
        is_admin: fresh.isAdmin,
        group: fresh.groupName,
        max_file_size: fresh.maxFileSize,
        quota_bytes: fresh.quotaBytes,
        used_bytes: fresh.usedBytes,
        free_bytes: Math.max(fresh.quotaBytes - fresh.usedBytes, 0),
        recycle_retention_days: deps.recycleRetentionDays,
      };
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
