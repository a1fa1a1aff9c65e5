import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword, type SignInLimiter } from '@platform/kit';
import type { EditorRow, EditorsRepository } from './editors-repository';

/** Sign-in attempts per client address and password checks per editor name, per 15 minutes. */
export const EDITOR_SIGN_IN_LIMITS = { attemptsPerAddress: 30, failuresPerAccount: 10 };

/** How long a session lasts from sign-in. */
export const SESSION_TTL_HOURS = 12;
/** Longest cookie value worth hashing: real tokens are 43 characters. */
const MAX_TOKEN_LENGTH = 256;

export type SignInOutcome =
  | { kind: 'signedIn'; token: string; expiresAt: Date; editor: EditorRow }
  | { kind: 'invalid' }
  | { kind: 'throttled'; retryAfterSeconds: number };

export interface EditorSession {
  sessionId: number;
  editor: EditorRow;
  /** The form token every POST of this session must carry (derived from the session's secret token). */
  csrfToken: string;
}

const digest = (token: string) => hash('sha256', token, 'hex');

/**
 * The CSRF token of a session: an HMAC keyed with the session's own secret, so only someone holding
 * the cookie can compute it, and nothing more needs storing. Constant for the session's life.
 */
export function csrfTokenOf(secret: string): string {
  return createHmac('sha256', secret).update('editor-csrf').digest('base64url');
}

/** Compares two tokens without an early exit on the first differing byte. */
export function sameToken(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createEditorAuth(deps: { editors: EditorsRepository; limiter: SignInLimiter; clock: () => Date }) {
  const { editors, limiter } = deps;
  // Verified against when the name is unknown, so an unknown name and a wrong password take the same work.
  const unknownEditorHash = hashPassword(randomBytes(16).toString('hex'));

  return {
    /**
     * Name and password → a session. Limited per client address and per name: the name's check is taken
     * before the password is verified, and given back when it was right. An unknown name, a wrong password
     * and a disabled editor all get the same answer. A hash made at an older cost is replaced.
     */
    async signIn(input: { name: string; password: string; address: string }): Promise<SignInOutcome> {
      const byAddress = await limiter.countAttempt(input.address);
      if (!byAddress.allowed) return { kind: 'throttled', retryAfterSeconds: byAddress.retryAfterSeconds };
      const byAccount = await limiter.takePasswordCheck(input.name);
      if (!byAccount.allowed) return { kind: 'throttled', retryAfterSeconds: byAccount.retryAfterSeconds };
      const found = await editors.findForSignIn(input.name);
      const matches = await verifyPassword(input.password, found?.passwordHash ?? (await unknownEditorHash));
      if (!found || !matches) return { kind: 'invalid' };
      await limiter.passwordAccepted(input.name);
      if (found.editor.disabled) return { kind: 'invalid' };
      if (needsRehash(found.passwordHash)) await editors.setPasswordHash(found.editor.id, await hashPassword(input.password), false);
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(deps.clock().getTime() + SESSION_TTL_HOURS * 3600_000);
      await editors.createSession(found.editor.id, digest(token), expiresAt);
      return { kind: 'signedIn', token, expiresAt, editor: found.editor };
    },

    /** The live session behind a cookie's token, or undefined (missing, unknown, expired, editor disabled). */
    async authenticate(token: string | undefined): Promise<EditorSession | undefined> {
      if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
      const found = await editors.findLiveSession(digest(token), deps.clock());
      return found ? { ...found, csrfToken: csrfTokenOf(token) } : undefined;
    },

    async signOut(session: EditorSession): Promise<void> {
      await editors.deleteSession(session.sessionId);
    },

    /** Housekeeping: expired sessions and sign-in counters past their window. */
    async removeExpired(): Promise<number> {
      const now = deps.clock();
      await limiter.removeExpired(now);
      return editors.deleteExpiredSessions(now);
    },
  };
}

export type EditorAuth = ReturnType<typeof createEditorAuth>;
