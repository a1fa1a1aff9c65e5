import type { RequestHandler } from 'express';

// This file is the same in both services (DESIGN: each owns its glue, no shared package).

export type ObserveRequest = (labels: { route: string; method: string; status: string }, seconds: number) => void;

/**
 * Counts and times every request under the route label the routes put in `res.locals.metricsRoute`
 * (an action name, `thumb`, `healthz`, `readyz`, `metrics`), or `unmatched`.
 */
export function requestMetrics(observe: ObserveRequest): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = typeof res.locals.metricsRoute === 'string' ? res.locals.metricsRoute : 'unmatched';
      observe({ route, method: req.method, status: String(res.statusCode) }, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
