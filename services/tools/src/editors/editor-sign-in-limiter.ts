import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { knexLimiterStore } from '@platform/kit';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { editorNameKey } from './editor-name';

const WINDOW_SECONDS = 15 * 60;
const TABLE = 'editor_sign_in_limits';

export interface SignInVerdict {
  allowed: boolean;
  /** Seconds until the window that refused this attempt ends. */
  retryAfterSeconds: number;
}

export interface SignInLimits {
  /** Sign-in attempts per client address per 15 minutes. */
  attemptsPerAddress: number;
  /** Password checks per editor name per 15 minutes (a right password starts the count again). */
  failuresPerAccount: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { attemptsPerAddress: 30, failuresPerAccount: 10 };

/**
 * The editors' sign-in limits, as the image host's: per client address (every attempt counts) and per
 * name (every password check counts, a right one clears them), in rate-limiter-flexible's Postgres
 * store on the tools database, so every replica shares them. A name is counted whether or not such an
 * editor exists, so the limit reveals nothing.
 */
export function createEditorSignInLimiter(db: Knex, limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {
  const common = { storeClient: knexLimiterStore(db), storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false };
  const byAddress = new RateLimiterPostgres({ ...common, keyPrefix: 'address', duration: WINDOW_SECONDS, points: limits.attemptsPerAddress });
  const byAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'account', duration: WINDOW_SECONDS, points: limits.failuresPerAccount });
  // A digest: names of any length fit the key column, and the table lists no names.
  const accountKey = (name: string) => createHash('sha256').update(editorNameKey(name)).digest('hex');

  /** Takes a point atomically (one upsert); allowed while the points taken in the window are within `limit`. */
  async function take(limiter: RateLimiterPostgres, key: string, limit: number): Promise<SignInVerdict> {
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(key, 1);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      res = error;
    }
    return { allowed: res.consumedPoints <= limit, retryAfterSeconds: Math.max(Math.ceil(res.msBeforeNext / 1000), 1) };
  }

  return {
    countAttempt(address: string): Promise<SignInVerdict> {
      return take(byAddress, address, limits.attemptsPerAddress);
    },
    /** Taken before the password is checked: concurrent attempts each take their own, so no more than the limit are checked. */
    takePasswordCheck(name: string): Promise<SignInVerdict> {
      return take(byAccount, accountKey(name), limits.failuresPerAccount);
    },
    async passwordAccepted(name: string): Promise<void> {
      await byAccount.delete(accountKey(name));
    },
    async removeExpired(now: Date): Promise<void> {
      await db(TABLE).where('expire', '<=', now.getTime()).delete();
    },
  };
}

export type EditorSignInLimiter = ReturnType<typeof createEditorSignInLimiter>;
