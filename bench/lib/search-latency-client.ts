import { timeSearches, type LatencyQuery } from './search-latency';

/**
 * The search latency scenario's client, a process of its own (see measureLatencies): reads its job from
 * SEARCH_LATENCY_JOB, writes its progress to stderr and the timings, as JSON, to stdout.
 */
const job = JSON.parse(process.env.SEARCH_LATENCY_JOB ?? '') as { base: string; queries: LatencyQuery[]; samples: number; pid: number };
timeSearches(job.base, job.queries, job.samples, job.pid, (line) => process.stderr.write(`${line}\n`)).then(
  (results) => process.stdout.write(JSON.stringify(results)),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
