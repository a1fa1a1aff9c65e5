import { AppError } from '../errors/app-error';
import type { Metrics } from '../metrics/metrics';
import type { RateLimitDecision, RequestLimiter } from '../ratelimit/request-limiter';
import { WINDOW_SECONDS } from '../ratelimit/request-limiter';
import type { KeyLookup } from './api-key-cache';
import type { ApiKeyRow } from './api-keys-repository';

export interface AccessControlOptions {
  keys: KeyLookup;
  limiter: RequestLimiter;
  metrics: Metrics;
  defaultRateLimitPerHour: number;
  anonymousRateLimitPerHour: number;
  now: () => number;
  /** Told of every request counted against a key (the admin's requests per hour: usage/key-hours.ts). */
  onKeyCounted?: (keyId: number) => void;
}

export interface AccessRequest {
  /** The key as presented (header over query); '' for one that cannot be valid (a repeated parameter). */
  presentedKey: string | undefined;
  clientIp: string;
  authentication: 'required' | 'optional';
}

function rateLimitHeaders(decision: RateLimitDecision, nowMs: number): Record<string, string> {
  const secondsToReset = Math.max(Math.ceil(decision.msBeforeReset / 1000), 0);
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(Math.ceil((nowMs + decision.msBeforeReset) / 1000)),
    'RateLimit-Policy': `"default";q=${decision.limit};w=${WINDOW_SECONDS}`,
    RateLimit: `"default";r=${decision.remaining};t=${secondsToReset}`,
  };
}

/**
 * Authenticates (when required) and counts the request against its key, or against the client IP
 * for anonymous calls to public actions. Returns the rate-limit headers of the answer; a 429 is
 * thrown with them and Retry-After.
 * A bad or disabled key is rejected before counting (there is no key to count against); on public
 * actions it is ignored and the request is treated as anonymous.
 */
export function createAccessControl(options: AccessControlOptions) {
  const limitOf = (key: ApiKeyRow) => key.rateLimitPerHour ?? options.defaultRateLimitPerHour;
  return async function admit(request: AccessRequest): Promise<Record<string, string>> {
    const presented = request.presentedKey;
    let key: ApiKeyRow | undefined;
    let decision: RateLimitDecision | undefined;
    const guess = presented === undefined ? undefined : options.keys.guess(presented);
    if (guess?.enabled) {
      // A key cached as enabled is counted while its version is checked, so both Redis commands go out
      // together. If the check finds the key changed, the request is decided afresh on what is current
      // (a key disabled a moment ago is then counted once more, on the request that finds out).
      const [found, counted] = await Promise.all([options.keys.find(presented!), options.limiter.consume(`key:${guess.id}`, limitOf(guess))]);
      key = found;
      if (found === guess) decision = counted;
    } else if (presented !== undefined) {
      key = await options.keys.find(presented);
    }
    let subject: string;
    let limit: number;
    if (key && key.enabled) {
      subject = `key:${key.id}`;
      limit = limitOf(key);
    } else if (request.authentication === 'required') {
      if (key && !key.enabled) throw new AppError('disabledKey', 403);
      throw new AppError('invalidKey', 401);
    } else {
      subject = `ip:${request.clientIp}`;
      limit = options.anonymousRateLimitPerHour;
    }

    decision ??= await options.limiter.consume(subject, limit);
    if (key && key.enabled) options.onKeyCounted?.(key.id);
    const headers = rateLimitHeaders(decision, options.now());
    if (!decision.allowed) {
      options.metrics.countRateLimitRejection(subject.startsWith('key:') ? 'key' : 'ip');
      throw new AppError('tooManyRequests', 429, { ...headers, 'Retry-After': String(Math.max(Math.ceil(decision.msBeforeReset / 1000), 1)) });
    }
    return headers;
  };
}

export type AccessControl = ReturnType<typeof createAccessControl>;
