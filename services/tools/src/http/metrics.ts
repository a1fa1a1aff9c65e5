import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestHandler } from 'express';

/** One registry per app: the embedded front door mounts several apps in one process. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tools_' });
  const requests = new Counter({
    name: 'tools_http_requests_total',
    help: 'HTTP requests by route (API action) and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tools_http_request_duration_seconds',
    help: 'HTTP request latency by route (API action) and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'tools_rate_limit_rejections_total',
    help: 'Requests answered 429 by the rate limiter',
    labelNames: ['subject'] as const,
    registers: [registry],
  });
  const observe: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    res.on('finish', () => {
      const labels = { route: String(res.locals.metricsRoute ?? 'unmatched'), method: req.method, status: String(res.statusCode) };
      requests.inc(labels);
      stop(labels);
    });
    next();
  };

  return { registry, observe, rateLimitRejections };
}

export type Metrics = ReturnType<typeof createMetrics>;
