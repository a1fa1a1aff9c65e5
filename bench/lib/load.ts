import autocannon from 'autocannon';
import { cpuSince, mainThreadCpuMs, peakRssBytes, resetPeakRss, snapshotCpu, type ProcessGroup } from './proc';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds of load; or `amount` requests. */
  durationSec?: number;
  amount?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** The body of every request, or a function giving each request its own. */
  body?: Buffer | (() => Buffer);
  /** Request paths taken in turn (pages, queries); default: the url's own. */
  paths?: string[];
}

function requestsOf(options: LoadOptions): autocannon.Options['requests'] {
  const paths = options.paths && options.paths.length > 0 ? options.paths : null;
  const bodyOf = typeof options.body === 'function' ? options.body : null;
  if (!paths && !bodyOf) return undefined;
  let next = 0;
  return [
    {
      setupRequest: (request) => {
        const path = paths ? paths[next % paths.length]! : request.path;
        next++;
        return { ...request, path, ...(bodyOf ? { body: bodyOf() } : {}) };
      },
    },
  ];
}

/**
 * Each autocannon connection opens a fresh one after this many requests, before nginx would close it.
 * nginx closes a client connection after keepalive_requests (1000) answers. autocannon 8 has by then
 * written the next request on it, and on reconnecting it keeps that lost request at the head of its
 * queue: every later answer on the connection is timed from the request before its own (latency one
 * request too long), and the lost one counts as an error. Its own reconnect clears the queue.
 */
const RECONNECT_EVERY = 500;

function autocannonOptions(options: LoadOptions): autocannon.Options {
  return {
    reconnectRate: RECONNECT_EVERY,
    url: options.url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationSec ?? 5 }),
    method: options.method ?? 'GET',
    headers: options.headers,
    body: typeof options.body === 'function' ? undefined : options.body,
    timeout: 60,
    requests: requestsOf(options),
  };
}

export async function load(options: LoadOptions): Promise<autocannon.Result> {
  return autocannon(autocannonOptions(options));
}

/**
 * One connection has one request in flight at a time, so the latencies of its answers add up to no
 * more than the run's duration, and the mean latency to no more than connections × duration ÷
 * answers. A mean above that is a load generator timing answers wrongly, and its percentiles would be
 * wrong too. autocannon's histogram keeps whole milliseconds, rounded down, so its mean errs low; the
 * 2 % allowed covers its duration, which it rounds to 10 ms.
 */
function checkLatencyFitsDuration(options: LoadOptions, seconds: number, latency: autocannon.Result['latency']): void {
  const answers = latency.totalCount;
  if (!answers) return;
  const boundMs = (options.connections * seconds * 1000) / answers;
  if (latency.mean > boundMs * 1.02) {
    throw new Error(
      `${options.url}: mean latency ${latency.mean} ms is more than ${options.connections} connections can give in ${seconds} s for ${answers} answers (${boundMs.toFixed(2)} ms): the latencies are mistimed`,
    );
  }
}

/**
 * One measured run of load, kept apart so that it can be summed with others (bench/lib/alternate.ts):
 * autocannon's result before aggregation (its latency histogram merges with other runs'), and the CPU
 * each process group spent during it, read from /proc.
 */
export interface LoadSlice {
  raw: autocannon.RawResult;
  /** Answers counted. */
  requests: number;
  seconds: number;
  /** Latency percentiles of this run's answers alone (slices merge their `raw` histograms instead). */
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 2xx and timeouts: any is a failed scenario. */
  failures: number;
  /** Connection errors (refused, reset): any is a failed scenario. */
  connectionErrors: number;
  statusCodes: Record<string, number>;
  /** CPU milliseconds spent during the run, by process group. */
  cpuMs: Map<string, number>;
  /** Of that, what the main thread of the group's leader spent, by process group. */
  mainThreadCpuMs: Map<string, number>;
  /** Peak RSS during the run, by process group (of its leader). */
  peakRss: Map<string, number>;
}

/** Runs the load and reads the CPU each process group spent during it, from /proc. */
export async function measureSlice(groups: ProcessGroup[], options: LoadOptions): Promise<LoadSlice> {
  const leaders = new Map<string, number>();
  for (const group of groups) {
    const pid = group.leader?.();
    if (pid !== undefined) {
      resetPeakRss(pid);
      leaders.set(group.name, pid);
    }
  }
  const mainThreadBefore = new Map([...leaders].map(([name, pid]) => [name, mainThreadCpuMs(pid)]));
  const before = await snapshotCpu(groups);
  const raw = await autocannon({ ...autocannonOptions(options), skipAggregateResult: true });
  const cpuMs = await cpuSince(groups, before);
  const { latency } = autocannon.aggregateResult([raw], { url: options.url });
  checkLatencyFitsDuration(options, raw.duration, latency);
  const peakRss = new Map<string, number>();
  const mainThread = new Map<string, number>();
  for (const [name, pid] of leaders) {
    const peak = peakRssBytes(pid);
    if (peak !== null) peakRss.set(name, peak);
    const start = mainThreadBefore.get(name);
    const end = mainThreadCpuMs(pid);
    if (start != null && end !== null) mainThread.set(name, end - start);
  }
  return {
    raw,
    requests: raw.totalCompletedRequests,
    seconds: raw.duration,
    p50Ms: latency.p50,
    p99Ms: latency.p99,
    failures: raw.non2xx + raw.timeouts,
    connectionErrors: raw.errors,
    statusCodes: Object.fromEntries(Object.entries(raw.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count])),
    cpuMs,
    mainThreadCpuMs: mainThread,
    peakRss,
  };
}
