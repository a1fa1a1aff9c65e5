import type { Request, Response } from 'express';
import type { ApiKeyRepository } from '../auth/apiKeyRepository';
import { findApiKey } from '../auth/apiKeys';
import type { RequestLimiter, RateLimitDecision } from '../ratelimit/requestLimiter';
import { WINDOW_SECONDS } from '../ratelimit/requestLimiter';
import { AppError, messages } from './appError';
import type { Metrics } from './metrics';

export interface AccessControlOptions {
  apiKeys: ApiKeyRepository;
  limiter: RequestLimiter;
  metrics: Metrics;
  defaultRateLimitPerHour: number;
  anonymousRateLimitPerHour: number;
  now?: () => number;
}

/** The key as presented: the `X-API-Key` header wins over the `api_key` query parameter. */
function presentedKey(req: Request): string | undefined {
  const header = req.get('x-api-key');
  if (header !== undefined && header !== '') return header;
  const fromQuery = req.query.api_key;
  if (fromQuery === undefined) return undefined;
  // A repeated api_key is no valid key.
  return typeof fromQuery === 'string' ? fromQuery : '';
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
 * Authenticates (when `required`) and counts the request against its key, or against the client IP for
 * anonymous calls to public actions. Every counted request gets the rate-limit headers, a 429 also Retry-After.
 * Decisions: a bad or disabled key is rejected before counting (there is no key to count against);
 * on public actions a bad or disabled key is ignored and the request is treated as anonymous.
 */
export function createAccessControl(options: AccessControlOptions) {
  const now = options.now ?? Date.now;
  return async function admit(req: Request, res: Response, authentication: 'required' | 'optional'): Promise<void> {
    const presented = presentedKey(req);
    const key = presented === undefined ? undefined : await findApiKey(options.apiKeys, presented);
    let subject: string;
    let limit: number;
    if (key && key.enabled) {
      subject = `key:${key.id}`;
      limit = key.rateLimitPerHour ?? options.defaultRateLimitPerHour;
    } else if (authentication === 'required') {
      if (key && !key.enabled) throw new AppError(403, messages.disabledKey);
      throw new AppError(401, messages.invalidKey);
    } else {
      subject = `ip:${req.ip ?? 'unknown'}`;
      limit = options.anonymousRateLimitPerHour;
    }

    const decision = await options.limiter.consume(subject, limit);
    res.set(rateLimitHeaders(decision, now()));
    if (!decision.allowed) {
      options.metrics.rateLimitRejections.inc({ subject: subject.startsWith('key:') ? 'key' : 'ip' });
      throw new AppError(429, messages.tooManyRequests, { 'Retry-After': String(Math.max(Math.ceil(decision.msBeforeReset / 1000), 1)) });
    }
  };
}

export type AccessControl = ReturnType<typeof createAccessControl>;
