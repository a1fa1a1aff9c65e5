// The parts of autocannon's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { IncomingHttpHeaders } from 'node:http';

  namespace autocannon {

  interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeout?: number;
    /** Open a fresh connection after this many requests on one. */
    reconnectRate?: number;
    requests?: { setupRequest?: (request: RequestParams) => RequestParams }[];
    excludeErrorStats?: boolean;
    /** Resolve with the run's raw result (RawResult), to be summed with others by aggregateResult. */
    skipAggregateResult?: boolean;
  }

  /** A run's result before aggregation: its histograms are encoded, its counts are totals. */
  interface RawResult {
    totalCompletedRequests: number;
    /** Seconds, to 10 ms. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
    /** Answers timed (latency histogram only). */
    totalCount?: number;
  }

  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    headers?: IncomingHttpHeaders;
  }

  }

  function autocannon(options: autocannon.Options & { skipAggregateResult: true }): Promise<autocannon.RawResult>;
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  namespace autocannon {
    /** Sums raw results: counts added, latency histograms merged (its duration is the first result's). */
    function aggregateResult(results: RawResult[], options?: Partial<Options>): Result;
  }
  export = autocannon;
}
