import os from 'node:os';

export const ROLES = ['node', 'postgres', 'redis', 'nginx'] as const;
export type Role = (typeof ROLES)[number];

export interface Measured {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU milliseconds per request, by role; absent roles took no part. */
  cpuMsPerRequest: Partial<Record<Role, number>>;
  /** Of the node role's, the main thread's (where JavaScript runs), when it was read. */
  nodeMainThreadMsPerRequest?: number;
  /** Peak RSS of the process under test, in bytes. */
  peakRssBytes?: number;
}

export interface Row {
  name: string;
  measured: Measured;
  /** The row this one is compared with (measured in the same rounds, bench/lib/alternate.ts), and the ratio of req/s. */
  baseline?: string;
  ratio?: number;
  note?: string;
}

export interface TargetCheck {
  target: string;
  met: boolean;
  detail: string;
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

function cpuCell(measured: Measured): string {
  const cpu = measured.cpuMsPerRequest;
  const mainThread = measured.nodeMainThreadMsPerRequest;
  const parts = ROLES.filter((role) => cpu[role] !== undefined).map(
    (role) => `${role} ${fixed(cpu[role]!, 3)}${role === 'node' && mainThread !== undefined ? ` (main thread ${fixed(mainThread, 3)})` : ''}`,
  );
  if (parts.length === 0) return '-';
  const total = ROLES.reduce((sum, role) => sum + (cpu[role] ?? 0), 0);
  return parts.length === 1 ? parts[0]! : `${parts.join(' + ')} = ${fixed(total, 3)}`;
}

export function totalCpu(measured: Measured): number {
  return ROLES.reduce((sum, role) => sum + (measured.cpuMsPerRequest[role] ?? 0), 0);
}

export function table(rows: Row[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms per request (by process)', 'peak RSS', 'vs baseline'];
  const lines = rows.map((row) => [
    row.name,
    fixed(row.measured.rps, 0),
    fixed(row.measured.p50Ms, 1),
    fixed(row.measured.p99Ms, 1),
    cpuCell(row.measured),
    row.measured.peakRssBytes === undefined ? '-' : `${fixed(row.measured.peakRssBytes / 1024 / 1024, 0)} MB`,
    row.ratio === undefined ? (row.note ?? '') : `${fixed(row.ratio, 2)}× ${row.baseline}${row.note ? `; ${row.note}` : ''}`,
  ]);
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 || i >= 4 ? '---' : '---:')).join('|')}|`,
    ...lines.map((cells) => `| ${cells.map(escape).join(' | ')} |`),
  ].join('\n');
}

export function targetsTable(checks: TargetCheck[]): string {
  return ['| target | met | measured |', '|---|---|---|', ...checks.map((c) => `| ${c.target} | ${c.met ? 'yes' : '**no**'} | ${c.detail} |`)].join('\n');
}

export function machineLine(): string {
  const cpus = os.cpus();
  return `${cpus.length} cores (${cpus[0]?.model ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 1024 ** 3)} GiB, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} at the end`;
}
