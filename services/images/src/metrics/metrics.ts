import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type UploadOutcome =
  | 'stored'
  | 'replayed'
  | 'deduplicated'
  | 'rejected_auth'
  | 'rejected_input'
  | 'rejected_type'
  | 'rejected_size'
  | 'rejected_quota'
  | 'failed';

/** One registry per app: the embedded front door mounts both services in one process. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'images_' });
  const httpRequests = new Counter({
    name: 'images_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'images_http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const uploads = new Counter({
    name: 'images_uploads_total',
    help: 'Upload attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const thumbnails = new Counter({
    name: 'images_thumbnails_made_total',
    help: 'Thumbnails generated at upload',
    registers: [registry],
  });
  const storageErrors = new Counter({
    name: 'images_storage_errors_total',
    help: 'Failed operations on a store (the bucket or the local disk) by backend and operation; "answers" is the readiness probe',
    labelNames: ['backend', 'operation'] as const,
    registers: [registry],
  });
  return {
    registry,
    countStorageError(backend: string, operation: string) {
      storageErrors.inc({ backend, operation });
    },
    observeRequest(labels: { route: string; method: string; status: string }, seconds: number) {
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
    },
    countUpload(outcome: UploadOutcome) {
      uploads.inc({ outcome });
    },
    countThumbnail() {
      thumbnails.inc();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
