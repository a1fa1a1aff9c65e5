import type { Knex } from 'knex';
import { knexLimiterStore } from '@platform/kit';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 3600;
/** Accepted submissions per client address per hour. */
export const DEFAULT_SUBMISSIONS_PER_HOUR = 5;

/**
 * The per-address limit of the public form, in rate-limiter-flexible's Postgres store on the tools
 * database (as the editors' sign-in limit): every replica shares it, and it needs no Redis.
 */
export function createSubmissionLimiter(db: Knex, perHour = DEFAULT_SUBMISSIONS_PER_HOUR) {
  const limiter = new RateLimiterPostgres({
    storeClient: knexLimiterStore(db),
    storeType: 'pool',
    tableName: 'tool_submission_limits',
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: 'submit',
    duration: WINDOW_SECONDS,
    points: perHour,
  });
  return {
    /** Takes a point for `addressHash` (one atomic upsert); refused past `perHour` in the window. */
    async take(addressHash: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
      let res: RateLimiterRes;
      try {
        res = await limiter.consume(addressHash, 1);
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        res = error;
      }
      return { allowed: res.consumedPoints <= perHour, retryAfterSeconds: Math.max(Math.ceil(res.msBeforeNext / 1000), 1) };
    },
  };
}
