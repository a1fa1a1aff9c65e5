import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per app: the embedded front door mounts both services in one process. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tools_' });
  const httpRequests = new Counter({
    name: 'tools_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'tools_http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
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
  const searchIndexBuild = new Gauge({
    name: 'tools_search_index_build_seconds',
    help: 'How long the last build of the in-memory search index took (at start, then on each catalog change)',
    registers: [registry],
  });
  // Read when scraped: 1 while this replica counts requests in memory (no Redis configured, or Redis
  // unreachable), so a key's hourly limit is per replica instead of shared.
  let limiterStore: () => 'memory' | 'ok' | 'degraded' = () => 'memory';
  new Gauge({
    name: 'tools_rate_limit_in_memory',
    help: '1 while this replica limits requests in memory (Redis not configured or unreachable), 0 while the limits are shared in Redis',
    registers: [registry],
    collect() {
      this.set(limiterStore() === 'ok' ? 0 : 1);
    },
  });
  // The labelled children, looked up once per route/method/status: prom-client hashes a labels object
  // on every call otherwise, on every request.
  const children = new Map<string, { requests: { inc(): void }; duration: { observe(seconds: number): void } }>();
  return {
    registry,
    observeRequest(labels: { route: string; method: string; status: string }, seconds: number) {
      const id = `${labels.route}\n${labels.method}\n${labels.status}`;
      let child = children.get(id);
      if (!child) {
        child = { requests: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
        children.set(id, child);
      }
      child.requests.inc();
      child.duration.observe(seconds);
    },
    searchIndexBuilt(seconds: number) {
      searchIndexBuild.set(seconds);
    },
    /** Where the in-memory gauge reads the limiter's state from. */
    watchLimiterStore(state: () => 'memory' | 'ok' | 'degraded') {
      limiterStore = state;
    },
    countRateLimitRejection(subject: 'key' | 'ip') {
      rateLimitRejections.inc({ subject });
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
