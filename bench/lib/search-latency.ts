import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { evaluateSearch, type QueryQuality, type SearchJudgement } from '../../services/tools/src/catalog/search-quality';

/**
 * The measuring and the tables of the search latency scenario (bench/run.ts, `searchScenario`):
 * sequential searches, one in flight at a time, so each latency is one search's and nothing queues.
 */

export interface LatencyQuery {
  query: string;
  kind: string;
}

/** What search as you type sends before a word is whole: one- and two-character prefixes. */
export const PREFIX_QUERIES: LatencyQuery[] = [
  ...['a', 'j', 's', 't', 'p', 'x', 'c', '截', '图', '视'].map((query) => ({ query, kind: 'prefix-1' })),
  ...['ai', 'jt', 'js', 'pd', 'tp', 'sp', 'ps', 'co', '在线', '视频'].map((query) => ({ query, kind: 'prefix-2' })),
];

export interface QueryLatency extends LatencyQuery {
  latenciesMs: number[];
  /**
   * Per search, the service's main thread's time on a CPU (its own work, collections included) and waiting
   * for one (the machine's other processes): from /proc/<pid>/task/<pid>/schedstat around each request.
   * A slow search that ran as long as a fast one was waiting, not working. Empty where the kernel keeps no schedstat.
   */
  onCpuMs: number[];
  runqueueMs: number[];
  /** The answer's total matches. */
  total: number;
}

export const searchPath = (query: string, limit?: number) => `/api/index.php?action=search&q=${encodeURIComponent(query)}${limit ? `&limit=${limit}` : ''}`;

async function searchOnce(base: string, query: string, limit?: number): Promise<{ slugs: string[]; total: number }> {
  const res = await fetch(`${base}${searchPath(query, limit)}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`search ${JSON.stringify(query)}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  const body = JSON.parse(text) as { success: boolean; data: { data: { slug: string }[]; total: number } };
  if (!body.success) throw new Error(`search ${JSON.stringify(query)}: ${text.slice(0, 200)}`);
  return { slugs: body.data.data.map((tool) => tool.slug), total: body.data.total };
}

/** The main thread's nanoseconds on a CPU and waiting on the run queue (Linux's schedstat), or undefined where the kernel keeps none. */
function mainThreadSchedule(pid: number): [number, number] | undefined {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return [onCpu!, waiting!];
  } catch {
    return undefined;
  }
}

/**
 * Every query `samples` times (the API's default page), round-robin over the queries so that whatever
 * the machine does meanwhile falls on all of them alike, after one unmeasured round. `pid`: the service's.
 * Runs in the client process of search-latency-client.ts, not in the bench's: see measureLatencies.
 */
export async function timeSearches(base: string, queries: LatencyQuery[], samples: number, pid: number, log: (line: string) => void): Promise<QueryLatency[]> {
  const results: QueryLatency[] = queries.map((query) => ({ ...query, latenciesMs: [], onCpuMs: [], runqueueMs: [], total: 0 }));
  for (const result of results) result.total = (await searchOnce(base, result.query)).total;
  const started = performance.now();
  for (let round = 0; round < samples; round++) {
    for (const result of results) {
      const before = mainThreadSchedule(pid);
      const begin = performance.now();
      await searchOnce(base, result.query);
      result.latenciesMs.push(performance.now() - begin);
      const after = mainThreadSchedule(pid);
      if (before && after) {
        result.onCpuMs.push((after[0] - before[0]) / 1e6);
        result.runqueueMs.push((after[1] - before[1]) / 1e6);
      }
    }
    if ((round + 1) % 10 === 0 || round === samples - 1) log(`  round ${round + 1} / ${samples} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  return results;
}

/**
 * timeSearches in a client process of its own (search-latency-client.ts), its progress lines passed to
 * `log`. The bench's own process holds the generated directory, the stack's handles and every figure so
 * far: its collections took 3–14 ms each (traced with a GC observer), and one falling inside a search's
 * timing was counted as the service's latency. The client's small heap collects in well under a millisecond.
 */
export async function measureLatencies(base: string, queries: LatencyQuery[], samples: number, pid: number, log: (line: string) => void): Promise<QueryLatency[]> {
  const client = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'search-latency-client.ts')], {
    env: { PATH: process.env.PATH, SEARCH_LATENCY_JOB: JSON.stringify({ base, queries, samples, pid }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  client.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  client.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (let end = stderr.indexOf('\n'); end >= 0; end = stderr.indexOf('\n')) {
      log(stderr.slice(0, end));
      stderr = stderr.slice(end + 1);
    }
  });
  const code = await new Promise<number | null>((resolve) => client.once('close', resolve));
  if (code !== 0) throw new Error(`the search latency client failed (${code}): ${stderr.slice(0, 500)}`);
  return JSON.parse(stdout) as QueryLatency[];
}

/** The nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** success@3 and recall@10 of the judged set against one directory, per kind. */
export async function judgedQuality(base: string, judgements: SearchJudgement[]): Promise<{ all: QualityFigures; byKind: Map<string, QualityFigures>; perQuery: QueryQuality[] }> {
  const quality = await evaluateSearch(async (query) => (await searchOnce(base, query, 10)).slugs, judgements);
  const byKind = new Map<string, QualityFigures>();
  for (const kind of new Set(quality.perQuery.map((entry) => entry.kind))) byKind.set(kind, figures(quality.perQuery.filter((entry) => entry.kind === kind)));
  return { all: figures(quality.perQuery), byKind, perQuery: quality.perQuery };
}

export interface QualityFigures {
  queries: number;
  successAt3: number;
  recallAt10: number;
}

function figures(entries: QueryQuality[]): QualityFigures {
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return { queries: entries.length, successAt3: mean(entries.map((entry) => (entry.successAt3 ? 1 : 0))), recallAt10: mean(entries.map((entry) => entry.recallAt10)) };
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const share = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(2));

/** One row per kind (latencies of all its queries pooled), then the worst queries by p99. */
export function latencyTables(
  results: QueryLatency[],
  quality: { sample: Map<string, QualityFigures>; large: Map<string, QualityFigures>; sampleAll: QualityFigures; largeAll: QualityFigures },
  worst: number,
  size: string,
): string {
  const kinds = [...new Set(results.map((result) => result.kind))];
  const lines = [
    `| kind | queries | samples | p50 ms | p99 ms | max ms | slowest query (its p99) | success@3 / recall@10, sample | same, ${size} tools |`,
    '|---|---:|---:|---:|---:|---:|---|---|---|',
  ];
  const row = (kind: string, of: QueryLatency[], sample: QualityFigures | undefined, large: QualityFigures | undefined) => {
    const pooled = of.flatMap((result) => result.latenciesMs);
    const slowest = [...of].sort((a, b) => percentile(b.latenciesMs, 99) - percentile(a.latenciesMs, 99))[0]!;
    lines.push(
      `| ${kind} | ${of.length} | ${pooled.length} | ${ms(percentile(pooled, 50))} | ${ms(percentile(pooled, 99))} | ${ms(Math.max(...pooled))} | \`${slowest.query}\` (${ms(percentile(slowest.latenciesMs, 99))}) | ` +
        `${share(sample?.successAt3)} / ${share(sample?.recallAt10)} | ${share(large?.successAt3)} / ${share(large?.recallAt10)} |`,
    );
  };
  for (const kind of kinds) row(kind, results.filter((result) => result.kind === kind), quality.sample.get(kind), quality.large.get(kind));
  row('**all**', results, quality.sampleAll, quality.largeAll);
  lines.push(
    '',
    `Slowest ${worst} queries (on-CPU and waiting: the service's main thread's, per search, where the kernel keeps schedstat; see measureLatencies):`,
    '',
    '| query | kind | matches | p50 ms | p99 ms | on-CPU p50 / p99 ms | waiting for a CPU p99 ms |',
    '|---|---|---:|---:|---:|---:|---:|',
  );
  for (const result of [...results].sort((a, b) => percentile(b.latenciesMs, 99) - percentile(a.latenciesMs, 99)).slice(0, worst)) {
    lines.push(
      `| \`${result.query}\` | ${result.kind} | ${result.total} | ${ms(percentile(result.latenciesMs, 50))} | ${ms(percentile(result.latenciesMs, 99))} | ` +
        `${ms(percentile(result.onCpuMs, 50))} / ${ms(percentile(result.onCpuMs, 99))} | ${ms(percentile(result.runqueueMs, 99))} |`,
    );
  }
  return lines.join('\n');
}
