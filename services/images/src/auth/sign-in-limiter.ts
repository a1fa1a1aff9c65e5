import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 15 * 60;
const TABLE = 'sign_in_limits';

/**
 * rate-limiter-flexible's Postgres store, on the service's own database (embedded PGlite too): its
 * queries, written for node-postgres (`$1` placeholders), run through knex. The table comes from a
 * migration; expired rows are removed by housekeeping, not by a timer of the library's.
 */
function knexStore(db: Knex) {
  return {
    async query(query: { text: string; values?: unknown[] }) {
      const values = query.values ?? [];
      const bindings: unknown[] = [];
      const sql = query.text.replace(/\$(\d+)/g, (_, index: string) => {
        bindings.push(values[Number(index) - 1]);
        return '?';
      });
      const result = (await db.raw(sql, bindings as Knex.RawBinding[])) as { rows: unknown[]; rowCount?: number | null; affectedRows?: number };
      // Through knex-pglite, rowCount is PGlite's affectedRows, which is 0 for a SELECT that found rows.
      const rowCount = result.rows.length > 0 ? result.rows.length : (result.rowCount ?? result.affectedRows ?? 0);
      return { rows: result.rows, rowCount };
    },
  };
}

export interface SignInVerdict {
  allowed: boolean;
  /** Seconds until the window that refused this attempt ends. */
  retryAfterSeconds: number;
}

/**
 * Sign-in (and registration) attempts, limited per client address (every attempt counts) and per
 * account name (failures count; a success clears them), each over 15 minutes. Names are counted
 * whether or not such a user exists, so the limit reveals nothing either.
 */
export function createSignInLimiter(db: Knex, limits: { attemptsPerAddress: number; failuresPerAccount: number }) {
  const common = { storeClient: knexStore(db), storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false, duration: WINDOW_SECONDS };
  const byAddress = new RateLimiterPostgres({ ...common, keyPrefix: 'address', points: limits.attemptsPerAddress });
  const byAccount = new RateLimiterPostgres({ ...common, keyPrefix: 'account', points: limits.failuresPerAccount });
  // A digest: names of any length fit the key column, and the table lists no names.
  const accountKey = (name: string) => createHash('sha256').update(name.trim().toLowerCase()).digest('hex');
  const verdict = (res: RateLimiterRes | null, limit: number): SignInVerdict => ({
    allowed: !res || res.consumedPoints <= limit,
    retryAfterSeconds: res ? Math.max(Math.ceil(res.msBeforeNext / 1000), 1) : 0,
  });

  async function consume(limiter: RateLimiterPostgres, key: string, limit: number): Promise<SignInVerdict> {
    try {
      return verdict(await limiter.consume(key, 1), limit);
    } catch (error) {
      if (error instanceof RateLimiterRes) return verdict(error, limit);
      throw error;
    }
  }

  return {
    /** Counts an attempt from `address`; refused once the address is over its limit. */
    countAttempt(address: string): Promise<SignInVerdict> {
      return consume(byAddress, address, limits.attemptsPerAddress);
    },

    /** Whether the account name is locked by earlier failures (this check counts nothing). */
    async accountLocked(name: string): Promise<SignInVerdict> {
      const res = await byAccount.get(accountKey(name));
      return res && res.consumedPoints >= limits.failuresPerAccount ? { allowed: false, retryAfterSeconds: Math.max(Math.ceil(res.msBeforeNext / 1000), 1) } : { allowed: true, retryAfterSeconds: 0 };
    },

    async countFailure(name: string): Promise<void> {
      await consume(byAccount, accountKey(name), limits.failuresPerAccount);
    },

    async clearFailures(name: string): Promise<void> {
      await byAccount.delete(accountKey(name));
    },

    /** Housekeeping: drops counters whose window has ended. */
    async removeExpired(now: Date): Promise<void> {
      await db(TABLE).where('expire', '<=', now.getTime()).delete();
    },
  };
}

export type SignInLimiter = ReturnType<typeof createSignInLimiter>;
