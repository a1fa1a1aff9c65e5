import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
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
  redis?: Redis;
  logger: Logger;
}

function toDecision(res: RateLimiterRes, limitPerHour: number): RateLimitDecision {
  return {
    allowed: res.consumedPoints <= limitPerHour,
    limit: limitPerHour,
    remaining: Math.max(limitPerHour - res.consumedPoints, 0),
    msBeforeReset: Math.max(res.msBeforeNext, 0),
  };
}

export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  const { redis, keyPrefix, logger } = options;
  const memoryOptions = { keyPrefix, points: COUNT_CEILING, duration: WINDOW_SECONDS };
  let counter: RateLimiterAbstract;
  /** Reads usage for the admin CLI. Without insurance: while Redis is down a read fails instead of reporting this process's own (empty) insurance count. */
  let usageReader: RateLimiterAbstract;
  if (redis) {
    const redisOptions = { storeClient: redis, keyPrefix, points: COUNT_CEILING, duration: WINDOW_SECONDS };
    // Per-process insurance: while Redis is unreachable each replica limits on its own (fail open, logged).
    counter = new RateLimiterRedis({ ...redisOptions, insuranceLimiter: new RateLimiterMemory(memoryOptions) });
    usageReader = new RateLimiterRedis(redisOptions);
  } else {
    counter = new RateLimiterMemory(memoryOptions);
    usageReader = counter;
  }

  let warnedOutage = false;
  const storeState = (): 'memory' | 'ok' | 'degraded' => {
    if (!redis) return 'memory';
    return redis.status === 'ready' ? 'ok' : 'degraded';
  };

  return {
    async consume(subject, limitPerHour) {
      const state = storeState();
      if (state === 'degraded') {
        if (!warnedOutage) {
          warnedOutage = true;
          logger.warn({ redisStatus: redis?.status }, 'rate limiter: Redis unavailable, per-process insurance limiter in use');
        }
      } else if (state === 'ok' && warnedOutage) {
        warnedOutage = false;
        logger.info('rate limiter: Redis available again, shared limits restored');
      }
      try {
        return toDecision(await counter.consume(subject, 1), limitPerHour);
      } catch (error) {
        // With the ceiling above this cannot be a rejection; a store error without insurance is rethrown.
        if (error instanceof RateLimiterRes) return toDecision(error, limitPerHour);
        throw error;
      }
    },
    async usage(subject) {
      const res = await usageReader.get(subject);
      if (!res) return null;
      return { consumed: res.consumedPoints, msBeforeReset: Math.max(res.msBeforeNext, 0) };
    },
    storeState,
  };
}
