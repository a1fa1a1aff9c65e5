import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import type { UserRow, UsersRepository } from '../users/users-repository';
import { hashToken } from './tokens';

export function createAuthService(deps: { users: UsersRepository }) {
  return {
    /** The user a token belongs to; `请先登录` for a missing, unusable or unknown one alike. */
    async authenticate(token: string | undefined): Promise<UserRow> {
      if (!token) throw new AppError(Messages.notLoggedIn, 200);
      const user = await deps.users.findByTokenHash(hashToken(token));
      if (!user) throw new AppError(Messages.notLoggedIn, 200);
      return user;
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
