import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { knexLimiterStore } from '../db/knex-limiter-store';

const SIGN_IN_WINDOW_SECONDS = 15 * 60;
const REGISTRATION_WINDOW_SECONDS = 60 * 60;

export interface SignInVerdict {
  allowed: boolean;
  /** Seconds until the window that refused this attempt ends. */
  retryAfterSeconds: number;
}

export interface SignInLimiterOptions {
  /** The service's table for rate-limiter-flexible's Postgres store (created by the service's migration). */
  tableName: string;
  /** The account's name as compared for uniqueness (`ALICE` is alice): one count per account. */
  nameKey: (name: string) => string;
  /** Sign-in (and registration) attempts per client address per 15 minutes. */
  attemptsPerAddress: number;
  /** Password checks per account per 15 minutes (a right password starts the count again). */
  failuresPerAccount: number;
  /** Registrations per client address per hour; a service without registration leaves it out. */
  registrationsPerAddress?: number;
}

/**
 * Password checks, limited per client address (every attempt counts), per account (every check of its
 * password counts, a right one clears them) and, where a service has registration, registrations per
 * address — each in rate-limiter-flexible's Postgres store on the service's database, so every replica
 * shares them. An account is counted under a digest of its name's key whether or not such an account
 * exists, so the limit reveals nothing, names of any length fit the key column and the table lists none.
 */
export function createSignInLimiter(db: Knex, options: SignInLimiterOptions) {
  const { tableName, attemptsPerAddress, failuresPerAccount, registrationsPerAddress = 0 } = options;
  const common = { storeClient: knexLimiterStore(db), storeType: 'pool', tableName, tableCreated: true, clearExpiredByTimeout: false };
  const byAddress = new RateLimiterPostgres({ ...common, keyPrefix: 'address', duration: SIGN_IN_WINDOW_SECONDS, points: attemptsPerAddress });
  const byAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'account', duration: SIGN_IN_WINDOW_SECONDS, points: failuresPerAccount });
  const registrations = new RateLimiterPostgres({ ...common, keyPrefix: 'register', duration: REGISTRATION_WINDOW_SECONDS, points: registrationsPerAddress });
  const accountKey = (name: string) => createHash('sha256').update(options.nameKey(name)).digest('hex');

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
      return take(byAddress, address, attemptsPerAddress);
    },

    /**
     * Takes one of the account's password checks, before its password is checked: concurrent attempts
     * each take their own, so no more than the limit are ever checked in a window. Refused once taken.
     */
    takePasswordCheck(name: string): Promise<SignInVerdict> {
      return take(byAccount, accountKey(name), failuresPerAccount);
    },

    /** The password was right: the account's count starts again (its own only: names are unique by key). */
    async passwordAccepted(name: string): Promise<void> {
      await byAccount.delete(accountKey(name));
    },

    /** Counts a registration from `address` (refused always where `registrationsPerAddress` was left out). */
    countRegistration(address: string): Promise<SignInVerdict> {
      return take(registrations, address, registrationsPerAddress);
    },

    /** Housekeeping: drops counters whose window has ended. */
    async removeExpired(now: Date): Promise<void> {
      await db(tableName).where('expire', '<=', now.getTime()).delete();
    },
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;
