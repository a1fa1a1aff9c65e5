/**
 * A baseline and its subject (and any reference beside them) measured in alternating slices rather
 * than one after the other.
 *
 * This kind of machine drifts by more than most changes within minutes (docs/benchmarks.md, "Noise on
 * these machines"). Cut into rounds, the baseline first in odd rounds and the subject first in even
 * ones, both sides share the drift, and the ratio is of the two sums.
 */
import autocannon from 'autocannon';
import type { Measured, Role } from './report';

/** One slice of a side: what it counted, over how long, and the CPU it cost. */
export interface Slice {
  requests: number;
  seconds: number;
  /** CPU milliseconds spent during the slice, by role. */
  cpuMs: Partial<Record<Role, number>>;
  /** Of the node role's, what the main thread spent (the event loop; the rest is worker threads), when read. */
  nodeMainThreadMs?: number;
  /** Its answers' latencies: autocannon's raw result (a histogram) of a load on `url`, or each one in ms (a baseline script's operations). */
  latencies: { raw: autocannon.RawResult; url: string } | number[];
  peakRssBytes?: number;
}

export interface Side {
  /** Load that is not measured, before the first slice. */
  warm(): Promise<void>;
  /** Measures one slice of `seconds`. */
  slice(seconds: number): Promise<Slice>;
}

/** The value at quantile `q` of ascending `sorted` values, as autocannon's histogram reports it (the lowest at or above q). */
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

/** Slices of one side as one measurement: counts and CPU summed, latency percentiles over every answer, the highest peak RSS. */
export function sumSlices(slices: Slice[]): Measured {
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  const cpuMsPerRequest: Partial<Record<Role, number>> = {};
  for (const slice of slices) {
    for (const [role, ms] of Object.entries(slice.cpuMs) as [Role, number][]) cpuMsPerRequest[role] = (cpuMsPerRequest[role] ?? 0) + ms;
  }
  for (const role of Object.keys(cpuMsPerRequest) as Role[]) cpuMsPerRequest[role] = requests > 0 ? cpuMsPerRequest[role]! / requests : 0;
  const mainThread = slices.map((s) => s.nodeMainThreadMs);
  const nodeMainThreadMsPerRequest = requests > 0 && mainThread.every((ms) => ms !== undefined) ? mainThread.reduce((sum, ms) => sum! + ms!, 0)! / requests : undefined;
  let p50Ms: number;
  let p99Ms: number;
  const lists = slices.map((s) => s.latencies).filter((l): l is number[] => Array.isArray(l));
  if (lists.length === slices.length) {
    const all = lists.flat().sort((a, b) => a - b);
    p50Ms = quantile(all, 0.5);
    p99Ms = quantile(all, 0.99);
  } else if (lists.length === 0) {
    const loads = slices.map((s) => s.latencies as { raw: autocannon.RawResult; url: string });
    const { latency } = autocannon.aggregateResult(
      loads.map((l) => l.raw),
      { url: loads[0]!.url },
    );
    p50Ms = latency.p50;
    p99Ms = latency.p99;
  } else {
    throw new Error('slices of one side must time their answers the same way');
  }
  const peaks = slices.map((s) => s.peakRssBytes).filter((p): p is number => p !== undefined);
  return {
    requests,
    rps: requests / (seconds || 1),
    p50Ms,
    p99Ms,
    cpuMsPerRequest,
    nodeMainThreadMsPerRequest,
    peakRssBytes: peaks.length > 0 ? Math.max(...peaks) : undefined,
  };
}

/**
 * Warms every side, then measures `rounds` rounds of one slice of each (`seconds` per slice): in
 * order in odd rounds and in reverse in even ones, so that no side always runs right after another.
 * Returns each side's slices summed, in the order of `sides`.
 */
export async function alternate(sides: Side[], options: { rounds: number; seconds: number }): Promise<Measured[]> {
  for (const side of sides) await side.warm();
  const slices: Slice[][] = sides.map(() => []);
  const order = sides.map((_, i) => i);
  for (let round = 1; round <= options.rounds; round++) {
    for (const i of round % 2 === 1 ? order : [...order].reverse()) slices[i]!.push(await sides[i]!.slice(options.seconds));
  }
  return slices.map(sumSlices);
}
