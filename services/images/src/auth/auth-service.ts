import { randomBytes } from 'node:crypto';
import type { SignInLimiter, SignInVerdict } from '@platform/kit';
import { AppError } from '../errors/app-error';
import { hashPassword, needsRehash, verifyPassword } from '../users/passwords';
import { UserAdminError, type UserAdmin } from '../users/user-admin';
import { userAdminRefusal } from '../users/user-admin-refusal';
import type { UserRow, UsersRepository } from '../users/users-repository';
import type { CredentialKind, CredentialsRepository } from './credentials-repository';
import { generateToken, hashToken } from './tokens';

/** Who a request acts for, and with which credential. */
export interface Principal {
  user: UserRow;
  credential: { id: number; kind: CredentialKind };
}

export interface SignedIn {
  token: string;
  expiresAt: Date;
  user: UserRow;
}

/** Longest credential worth hashing: real ones are 43 characters. */
const MAX_TOKEN_LENGTH = 256;
/** `last_used_at` is written at most this often per credential: one write per request would be wasteful. */
const TOUCH_EVERY_MS = 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
function throttled(verdict: SignInVerdict): AppError {
  return new AppError('signInThrottled', 200, { 'Retry-After': String(verdict.retryAfterSeconds) });
}

export function createAuthService(deps: {
  users: UsersRepository;
  credentials: CredentialsRepository;
  userAdmin: UserAdmin;
  limiter: SignInLimiter;
  clock: () => Date;
  sessionTtlHours: number;
  /** The effective site settings (settings/site-settings.ts): registration on or off, the site's name. */
  siteSettings: () => Promise<{ registrationEnabled: boolean; siteName: string | null }>;
}) {
  const { users, credentials, limiter } = deps;
  // Verified against when the name is unknown (or has no password), so that both take the time of a
  // real check: the answer and its timing reveal nothing about which names exist.
  const unknownUserHash = hashPassword(randomBytes(16).toString('hex'));

  async function startSession(user: UserRow): Promise<SignedIn> {
    const token = generateToken();
    const expiresAt = new Date(deps.clock().getTime() + deps.sessionTtlHours * HOUR_MS);
    await credentials.createSession(user.id, hashToken(token), expiresAt);
    return { token, expiresAt, user };
  }

  /** Name and password → the user, with every check a sign-in makes (limits, password, disabled account). */
  async function checkSignIn(input: { name: string; password: string; address: string }): Promise<UserRow> {
    if (input.name.trim() === '' || input.password === '') throw new AppError('credentialsRequired', 200);
    const byAddress = await limiter.countAttempt(input.address);
    if (!byAddress.allowed) throw throttled(byAddress);
    const byAccount = await limiter.takePasswordCheck(input.name);
    if (!byAccount.allowed) throw throttled(byAccount);
    const found = await users.findForSignIn(input.name);
    const matches = await verifyPassword(input.password, found?.passwordHash ?? (await unknownUserHash));
    if (!found || !found.passwordHash || !matches) throw new AppError('invalidCredentials', 200);
    await limiter.passwordAccepted(input.name);
    if (found.user.disabled) throw new AppError('accountDisabled', 200);
    if (needsRehash(found.passwordHash)) await users.setPasswordHash(found.user.id, await hashPassword(input.password), null);
    return found.user;
  }

  return {
    /** The principal of a credential; `请先登录` for a missing, unknown, revoked, expired or disabled one alike. */
    async authenticate(token: string | undefined): Promise<Principal> {
      if (!token || token.length > MAX_TOKEN_LENGTH) throw new AppError('notLoggedIn', 200);
      const now = deps.clock();
      const found = await credentials.findLive(hashToken(token), now);
      if (!found) throw new AppError('notLoggedIn', 200);
      if (!found.credential.lastUsedAt || now.getTime() - found.credential.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
        await credentials.touch(found.credential.id, now);
      }
      return { user: found.user, credential: { id: found.credential.id, kind: found.credential.kind } };
    },

    /**
     * Name and password → a session credential. Limited per client address and per account: the
     * account's check is taken before its password is checked, and given back when it was right. An
     * unknown name and a wrong password get the same answer after the same work. A hash made at an
     * older cost is replaced with one at today's.
     */
    async signIn(input: { name: string; password: string; address: string }): Promise<SignedIn> {
      return startSession(await checkSignIn(input));
    },

    /** A sign-in's checks without the session (a compatible API's token request: compat/lsky-routes.ts). */
    checkSignIn,

    /**
     * Whether `password` is the user's, counted as a sign-in's check of it is (a session holder
     * guessing the current password meets the same limit as a sign-in).
     */
    async checkOwnPassword(user: UserRow, password: string): Promise<void> {
      const byAccount = await limiter.takePasswordCheck(user.name);
      if (!byAccount.allowed) throw throttled(byAccount);
      const found = await users.findForSignIn(user.name);
      const matches = await verifyPassword(password, found?.passwordHash ?? (await unknownUserHash));
      if (!found?.passwordHash || found.user.id !== user.id || !matches) throw new AppError('wrongPassword', 200);
      await limiter.passwordAccepted(user.name);
    },

    /** Ends the session the request was made with. */
    async signOut(principal: Principal): Promise<void> {
      await credentials.deleteSession(principal.credential.id);
    },

    /**
     * Self-registration (off unless the site settings open it): a user in the default group, signed in at once.
     * `用户名已被使用` tells a taken name apart, which a sign-up form cannot avoid; registrations are
     * limited per address more strictly than sign-ins, and a taken name costs the same work as a free one.
     */
    async register(input: { name: string; password: string; address: string }): Promise<SignedIn> {
      if (!(await deps.siteSettings()).registrationEnabled) throw new AppError('registrationClosed', 200);
      const byAddress = await limiter.countAttempt(input.address);
      if (!byAddress.allowed) throw throttled(byAddress);
      const registrations = await limiter.countRegistration(input.address);
      if (!registrations.allowed) throw throttled(registrations);
      let created;
      try {
        created = await deps.userAdmin.createUser({ name: input.name, password: input.password });
      } catch (error) {
        if (error instanceof UserAdminError) throw userAdminRefusal(error);
        throw error;
      }
      return startSession((await users.findById(created.id))!);
    },

    /** What the sign-in page and the header may offer and show (public). */
    async features(): Promise<{ registration: boolean; site_name: string | null }> {
      const settings = await deps.siteSettings();
      return { registration: settings.registrationEnabled, site_name: settings.siteName };
    },

    /** Housekeeping: sessions past their expiry and sign-in counters past their window. */
    async removeExpired(): Promise<number> {
      const now = deps.clock();
      await limiter.removeExpired(now);
      return credentials.deleteExpiredSessions(now);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
