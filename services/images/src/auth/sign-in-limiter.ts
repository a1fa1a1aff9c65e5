import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { knexLimiterStore } from '@platform/kit';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { userNameKey } from '../users/user-name';

const WINDOW_SECONDS = 15 * 60;
const TABLE = 'sign_in_limits';

export interface SignInVerdict {
  allowed: boolean;
  /** Seconds until the window that refused this attempt ends. */
  retryAfterSeconds: number;
}

const REGISTRATION_WINDOW_SECONDS = 60 * 60;

/**
 * Password checks, limited per client address (every sign-in and registration attempt counts), per
 * account (every check of its password counts, a right one clears them) and registrations per address,
 * each in rate-limiter-flexible's Postgres store. An account is counted under its name's key
 * (userNameKey: `ALICE` is alice), whether or not such a user exists, so the limit reveals nothing.
 */
export function createSignInLimiter(db: Knex, limits: { attemptsPerAddress: number; failuresPerAccount: number; registrationsPerAddress: number }) {
  const common = { storeClient: knexLimiterStore(db), storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false };
  const byAddress = new RateLimiterPostgres({ ...common, keyPrefix: 'address', duration: WINDOW_SECONDS, points: limits.attemptsPerAddress });
  const byAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'account', duration: WINDOW_SECONDS, points: limits.failuresPerAccount });
  const registrations = new RateLimiterPostgres({ ...common, keyPrefix: 'register', duration: REGISTRATION_WINDOW_SECONDS, points: limits.registrationsPerAddress });
  // A digest: names of any length fit the key column, and the table lists no names.
  const accountKey = (name: string) => createHash('sha256').update(userNameKey(name)).digest('hex');

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
    /** Counts a sign-in or registration attempt from `address`; refused once the address is over its limit. */
    countAttempt(address: string): Promise<SignInVerdict> {
      return take(byAddress, address, limits.attemptsPerAddress);
    },

    /**
     * Takes one of the account's password checks, before its password is checked: concurrent attempts
     * each take their own, so no more than the limit are ever checked in a window. Refused once taken.
     */
    takePasswordCheck(name: string): Promise<SignInVerdict> {
      return take(byAccount, accountKey(name), limits.failuresPerAccount);
    },

    /** The password was right: the account's count starts again (its own only: names are unique by key). */
    async passwordAccepted(name: string): Promise<void> {
      await byAccount.delete(accountKey(name));
    },

    /** Counts a registration from `address`: a stricter limit, since a taken name is told apart (see docs/accounts.md). */
    countRegistration(address: string): Promise<SignInVerdict> {
      return take(registrations, address, limits.registrationsPerAddress);
    },

    /** Housekeeping: drops counters whose window has ended. */
    async removeExpired(now: Date): Promise<void> {
      await db(TABLE).where('expire', '<=', now.getTime()).delete();
    },
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;
