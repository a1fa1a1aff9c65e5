import autocannon from 'autocannon';
import { cpuSince, peakRssBytes, resetPeakRss, snapshotCpu, type ProcessGroup } from './proc';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds of load; or `amount` requests. */
  durationSec?: number;
  amount?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: Buffer;
  /** Request paths taken in turn (pages, queries); default: the url's own. */
  paths?: string[];
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 2xx and timeouts: any is a failed scenario. */
  failures: number;
  /**
   * Connection errors: nginx closes a client connection after keepalive_requests (1000) answers, and a
   * request autocannon had already written on it is lost as an error. A few per thousand are that.
   */
  connectionErrors: number;
  statusCodes: Record<string, number>;
  /** CPU milliseconds per request, by process group. */
  cpuMsPerRequest: Map<string, number>;
  /** Peak RSS during the run, by process group (the group's rssPid). */
  peakRss: Map<string, number>;
}

function requestsOf(options: LoadOptions): autocannon.Options['requests'] {
  const paths = options.paths;
  if (!paths || paths.length === 0) return undefined;
  let next = 0;
  return [
    {
      setupRequest: (request) => {
        const path = paths[next % paths.length]!;
        next++;
        return { ...request, path };
      },
    },
  ];
}

export async function load(options: LoadOptions): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationSec ?? 5 }),
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    timeout: 60,
    requests: requestsOf(options),
  });
}

/** Runs the load and reads the CPU each process group spent during it, from /proc. */
export async function measure(groups: ProcessGroup[], options: LoadOptions): Promise<LoadResult> {
  const rssPids = new Map<string, number>();
  for (const group of groups) {
    const pid = group.rssPid?.();
    if (pid !== undefined) {
      resetPeakRss(pid);
      rssPids.set(group.name, pid);
    }
  }
  const before = await snapshotCpu(groups);
  const result = await load(options);
  const cpu = await cpuSince(groups, before);
  const requests = result.requests.total;
  const cpuMsPerRequest = new Map<string, number>();
  for (const [name, ms] of cpu) cpuMsPerRequest.set(name, requests > 0 ? ms / requests : 0);
  const peakRss = new Map<string, number>();
  for (const [name, pid] of rssPids) {
    const peak = peakRssBytes(pid);
    if (peak !== null) peakRss.set(name, peak);
  }
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]));
  return {
    requests,
    rps: requests / (result.duration || 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.timeouts,
    connectionErrors: result.errors,
    statusCodes,
    cpuMsPerRequest,
    peakRss,
  };
}
