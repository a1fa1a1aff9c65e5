import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisClient } from './redis-connection';
import type { Logger } from 'pino';

export const WINDOW_SECONDS = 3600;

/**
 * Counters never reject inside rate-limiter-flexible: keys have different limits, so one limiter counts
 * (one Redis round trip, an atomic INCR with the window's TTL set on the first request) and the decision
 * is taken here by comparing the count with the subject's own limit. A limit changed by the admin CLI
 * therefore applies at once, to the window already running.
 */
const COUNT_CEILING = Number.MAX_SAFE_INTEGER;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window ends. */
  msBeforeReset: number;
}

export interface WindowUsage {
  consumed: number;
  msBeforeReset: number;
}

export interface RequestLimiter {
  /** Counts one request for `subject` and says whether it is within `limitPerHour`. */
  consume(subject: string, limitPerHour: number): Promise<RateLimitDecision>;
  /** The current window's count without counting a request (for the admin CLI's key list); rejects while Redis is unreachable. */
  usage(subject: string): Promise<WindowUsage | null>;
  /** 'memory' without Redis; with Redis: 'ok' when connected, 'degraded' while the insurance limiter serves. */
  storeState(): 'memory' | 'ok' | 'degraded';
}

export interface RequestLimiterOptions {
  keyPrefix: string;
  redis?: RedisClient;
  logger: Logger;
  /** Milliseconds since the epoch, for the retry pause after a failed Redis command; tests pass their own. */
  now?: () => number;
}

function toDecision(res: RateLimiterRes, limitPerHour: number): RateLimitDecision {
  return {
    allowed: res.consumedPoints <= limitPerHour,
    limit: limitPerHour,
    remaining: Math.max(limitPerHour - res.consumedPoints, 0),
    msBeforeReset: Math.max(res.msBeforeNext, 0),
  };
}

/**
 * After a failed Redis command the next ones go straight to the insurance limiter for this long. A Redis
 * that hangs (still connected, not answering) would otherwise cost every request the command timeout.
 */
export const STORE_RETRY_MS = 1000;

/**
 * A subject's key in Redis, hash-tagged (`tools_rl:{key:42}`): on a Cluster every counter of one subject
 * lives in one slot, whatever is stored beside the count, while different subjects spread over the masters.
 */
export const clusterSafeKey = (subject: string): string => `{${subject}}`;

export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  const { redis, keyPrefix, logger } = options;
  const now = options.now ?? Date.now;
  // Per-process insurance: while Redis is unreachable each replica limits on its own (fail open, logged).
  const insurance = new RateLimiterMemory({ keyPrefix, points: COUNT_CEILING, duration: WINDOW_SECONDS });
  const shared = redis ? new RateLimiterRedis({ storeClient: redis, keyPrefix, points: COUNT_CEILING, duration: WINDOW_SECONDS }) : undefined;
  /** Reads usage for the admin CLI. Without insurance: while Redis is down a read fails instead of reporting this process's own (empty) insurance count. */
  const usageReader: RateLimiterAbstract = shared ?? insurance;

  /** The last command failed: ioredis still says 'ready' for a Redis that hangs. */
  let storeFailing = false;
  let retryStoreAt = 0;
  let outageLogged = false;

  const storeState = (): 'memory' | 'ok' | 'degraded' => {
    if (!redis) return 'memory';
    return redis.status === 'ready' && !storeFailing ? 'ok' : 'degraded';
  };

  const onInsurance = (subject: string, detail: Record<string, unknown>) => {
    if (!outageLogged) {
      outageLogged = true;
      logger.warn(detail, 'rate limiter: Redis unavailable, per-process insurance limiter in use');
    }
    return insurance.consume(subject, 1);
  };

  /** One count: on Redis when it is there (one round trip), else on the insurance limiter. */
  async function count(subject: string): Promise<RateLimiterRes> {
    if (!redis || !shared) return insurance.consume(subject, 1); // no Redis configured: memory is the store
    if (redis.status !== 'ready' || now() < retryStoreAt) return onInsurance(subject, { redisStatus: redis.status });
    try {
      const counted = await shared.consume(clusterSafeKey(subject), 1);
      storeFailing = false;
      if (outageLogged) {
        outageLogged = false;
        logger.info('rate limiter: Redis available again, shared limits restored');
      }
      return counted;
    } catch (error) {
      if (error instanceof RateLimiterRes) throw error;
      storeFailing = true;
      retryStoreAt = now() + STORE_RETRY_MS;
      return onInsurance(subject, { err: error instanceof Error ? error.message : String(error) });
    }
  }

  return {
    async consume(subject, limitPerHour) {
      try {
        return toDecision(await count(subject), limitPerHour);
      } catch (error) {
        // With the ceiling above this cannot be a rejection.
        if (error instanceof RateLimiterRes) return toDecision(error, limitPerHour);
        throw error;
      }
    },
    async usage(subject) {
      const res = await usageReader.get(shared ? clusterSafeKey(subject) : subject);
      if (!res) return null;
      return { consumed: res.consumedPoints, msBeforeReset: Math.max(res.msBeforeNext, 0) };
    },
    storeState,
  };
}
