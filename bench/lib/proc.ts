import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  ppid: number;
  /** user + system CPU, in milliseconds. */
  cpuMs: number;
}

function readStat(pid: number, thread?: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  } catch {
    return null; // gone
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it start at the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is state (field 3): ppid is field 4, utime 14, stime 15.
  return { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND };
}

/** The process and every descendant (nginx's workers, tsx's child node, a shell's children). */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(entry));
    children.set(stat.ppid, list);
  }
  const tree: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

export function cpuMs(pid: number): number | null {
  return readStat(pid)?.cpuMs ?? null;
}

/**
 * CPU milliseconds of a process's main thread alone (the thread whose id is the pid). In Node that is
 * the event loop, where JavaScript runs; libuv's thread pool, libvips' workers and V8's helper threads
 * are the rest of the process's CPU.
 */
export function mainThreadCpuMs(pid: number): number | null {
  return readStat(pid, pid)?.cpuMs ?? null;
}

/** Peak resident set size (VmHWM) in bytes since start or since resetPeakRss. */
export function peakRssBytes(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (clear_refs 5), so the next peak is this scenario's own. */
export function resetPeakRss(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not ours or gone: the peak then counts from the process's start
  }
}

/**
 * A named set of processes whose CPU is measured together (one column of the table). `pids` is
 * asked again at the start and the end of a measurement: Postgres backends and nginx workers may
 * appear during a run. A process seen only at the end counts from 0 (it started during the run).
 */
export interface ProcessGroup {
  name: string;
  pids(): Promise<number[]>;
  /** The process the group was started as, when it has one: its peak RSS and its main thread's CPU are read. */
  leader?: () => number | undefined;
}

export interface CpuSnapshot {
  perPid: Map<string, Map<number, number>>;
}

export async function snapshotCpu(groups: ProcessGroup[]): Promise<CpuSnapshot> {
  const perPid = new Map<string, Map<number, number>>();
  for (const group of groups) {
    const pids = new Map<number, number>();
    for (const pid of await group.pids()) {
      const ms = cpuMs(pid);
      if (ms !== null) pids.set(pid, ms);
    }
    perPid.set(group.name, pids);
  }
  return { perPid };
}

/** CPU milliseconds each group used between the two snapshots. */
export async function cpuSince(groups: ProcessGroup[], before: CpuSnapshot): Promise<Map<string, number>> {
  const used = new Map<string, number>();
  for (const group of groups) {
    const start = before.perPid.get(group.name) ?? new Map<number, number>();
    const pids = new Set([...start.keys(), ...(await group.pids())]);
    let total = 0;
    for (const pid of pids) {
      const now = cpuMs(pid);
      if (now === null) continue; // ended during the run: its ticks are lost (rare: pools keep connections)
      total += now - (start.get(pid) ?? 0);
    }
    used.set(group.name, total);
  }
  return used;
}
