/**
 * `npm run bench [-- --smoke] [-- --only <scenario,...>] [-- --duration <seconds>] [-- --samples <n>] [-- --no-build] [-- --no-write]`
 *
 * Builds the production JS, starts the real stack on loopback (its own Postgres databases, a private
 * redis-server, nginx rendered from proxy/nginx.conf.template, both services with NODE_ENV=production),
 * loads a generated dataset, and runs each scenario with autocannon and its baseline in alternating
 * slices (bench/lib/alternate.ts).
 * Each scenario is one function below (replicas: bench/lib/replicas.ts); `main` runs the ones asked for, in a fixed order.
 * Prints one table and writes bench/results.md (unless --smoke or --no-write). See docs/benchmarks.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { Client } from 'pg';
import { createImagesGroup, createImagesUser, NEEDLE, NEEDLE_MATCHES, seedImageRows, seedTools, uniqueMultipartUploads, writeJpeg, writeLargePng } from './lib/dataset';
import { alternate, type Side, type Slice } from './lib/alternate';
import { judgedQuality, latencyTables, measureLatencies, percentile, PREFIX_QUERIES, searchPath, type LatencyQuery, type QualityFigures } from './lib/search-latency';
import { generateToolDirectory } from '../services/tools/src/catalog/search-generated-directory';
import { loadSearchJudgements, RECALL_AT_10_TARGET, SUCCESS_AT_3_TARGET } from '../services/tools/src/catalog/search-quality';
import { keywordSearchScenario } from './lib/keyword-search';
import { createLifecycle, type Lifecycle } from './lib/lifecycle';
import { replicasScenario } from './lib/replicas';
import type { Bench, Mode, Uploads } from './lib/bench';
import { load, measureSlice, type LoadOptions, type LoadSlice } from './lib/load';
import { cpuSince, peakRssBytes, resetPeakRss, snapshotCpu, type ProcessGroup } from './lib/proc';
import { machineLine, table, targetsTable, totalCpu, type Measured, type Role, type Row } from './lib/report';
import {
  connectPostgres,
  freePort,
  randomSuffix,
  ROOT,
  runAdmin,
  startProjectNginx,
  startRedis,
  startService,
  startStaticNginx,
  treeGroup,
} from './lib/stack';

const FULL: Mode = {
  smoke: false,
  durationSec: 10,
  rounds: 4,
  warmupSec: 3,
  connections: 16,
  smallImages: 1_000,
  largeImages: 1_000_000,
  uploadConnections: 4,
  uploadSec: 15,
  rssUploads: 16,
  rssUploadBytes: 20 * 1024 * 1024,
  searchTools: 10_000,
  searchSamples: 100,
};

/** Seconds, not minutes: every scenario runs once, tiny, so CI sees the harness work end to end. */
const SMOKE: Mode = {
  smoke: true,
  durationSec: 0.5,
  rounds: 2,
  warmupSec: 0.2,
  connections: 16,
  smallImages: 1_000,
  largeImages: 5_000,
  uploadConnections: 4,
  uploadSec: 0.5,
  rssUploads: 16,
  rssUploadBytes: 1024 * 1024,
  searchTools: 1_000,
  searchSamples: 2,
};

const ALL_SCENARIOS = ['tools', 'search', 'images-list', 'keyword-search', 'static', 'upload', 'media', 'upload-rss', 'embedded', 'replicas'] as const;
type ScenarioName = (typeof ALL_SCENARIOS)[number];

const TOOLS_LIST_PAGES = 13; // the sample directory has 247 tools: 13 pages of 20, the last one partial
const SEARCH_QUERIES = ['截图', 'jietu', 'jt', 'markdown', 'json', '图片', 'code', 'pdf', '翻译', 'editor', 'git', 'api'];
const LIST_PAGES = 5;

function parseArgs(argv: string[]): { mode: Mode; only: Set<ScenarioName>; build: boolean; write: boolean } {
  let mode = FULL;
  let only = new Set<ScenarioName>(ALL_SCENARIOS);
  let write = true;
  let duration: number | undefined;
  let samples: number | undefined;
  let build = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--smoke') mode = SMOKE;
    else if (arg === '--no-write') write = false;
    else if (arg === '--no-build') build = false;
    else if (arg === '--samples') {
      const count = Number(argv[++i]);
      if (!Number.isInteger(count) || count < 1) usage('--samples takes a whole number of timed searches per query');
      samples = count;
    }
    else if (arg === '--duration') {
      const seconds = Number(argv[++i]);
      if (!(seconds > 0)) usage('--duration takes a number of seconds');
      duration = seconds;
    }
    else if (arg === '--only') {
      const names = (argv[++i] ?? '').split(',').filter(Boolean);
      const unknown = names.filter((n) => !(ALL_SCENARIOS as readonly string[]).includes(n));
      if (names.length === 0 || unknown.length > 0) usage(`--only takes scenario names from: ${ALL_SCENARIOS.join(', ')}`);
      only = new Set(names as ScenarioName[]);
    } else if (arg === '--help' || arg === '-h') usage();
    else usage(`unknown argument ${arg}`);
  }
  if (duration !== undefined) mode = { ...mode, durationSec: duration, uploadSec: duration };
  if (samples !== undefined) mode = { ...mode, searchSamples: samples };
  // A smoke run proves the harness works; its numbers are not results.
  return { mode, only, build, write: write && build && !mode.smoke && only.size === ALL_SCENARIOS.length && duration === undefined && samples === undefined };
}

function usage(problem?: string): never {
  if (problem) process.stderr.write(`bench: ${problem}\n`);
  process.stderr.write(`usage: npm run bench [-- --smoke] [-- --only ${ALL_SCENARIOS.join(',')}] [-- --duration <seconds>] [-- --samples <n>] [-- --no-build] [-- --no-write]\n`);
  process.exit(problem ? 2 : 0);
}

const benchStarted = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

function toSlice(slice: LoadSlice, url: string, roles: Record<string, Role>, rssGroup?: string): Slice {
  const cpuMs: Partial<Record<Role, number>> = {};
  for (const [group, ms] of slice.cpuMs) {
    const role = roles[group];
    if (role) cpuMs[role] = (cpuMs[role] ?? 0) + ms;
  }
  const nodeGroups = [...slice.cpuMs.keys()].filter((group) => roles[group] === 'node');
  const mainThread = nodeGroups.map((group) => slice.mainThreadCpuMs.get(group));
  const nodeMainThreadMs = nodeGroups.length > 0 && mainThread.every((ms) => ms !== undefined) ? mainThread.reduce((sum, ms) => sum! + ms!, 0) : undefined;
  return {
    requests: slice.requests,
    seconds: slice.seconds,
    cpuMs,
    nodeMainThreadMs,
    latencies: { raw: slice.raw, url },
    peakRssBytes: rssGroup ? slice.peakRss.get(rssGroup) : undefined,
  };
}

async function expectJson(url: string, headers: Record<string, string>, check: (body: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${what}: not JSON (HTTP ${res.status}): ${text.slice(0, 200)}`);
  }
  if (res.status !== 200 || !check(body)) throw new Error(`${what}: unexpected answer (HTTP ${res.status}): ${text.slice(0, 300)}`);
  return body;
}

/**
 * Runs a script of bench/baselines/ as its own process until it closes (exited, its output read to
 * the end) and returns the JSON of its last line of output; its stderr goes to `logFile` when given.
 */
async function runBaselineScript<T>(lifecycle: Lifecycle, name: string, script: string, env: NodeJS.ProcessEnv, options: { logFile?: string } = {}): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  lifecycle.onCleanup(name, () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (options.logFile) writeFileSync(options.logFile, stderr);
  if (code !== 0) throw new Error(`${name} failed (${code}): ${stderr.slice(0, 500)}`);
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

/** The tools requests of targets 1 and 5, with the key in its header. */
interface ToolsRequests {
  listPaths: string[];
  searchPaths: string[];
  keyHeader: Record<string, string>;
}

/** Builds the production JS if asked, starts the stack and seeds it. */
async function startBench(mode: Mode, lifecycle: Lifecycle, workDir: string, build: boolean): Promise<Bench> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (build) {
    log(`bench (${mode.smoke ? 'smoke' : 'full'}): building the production JS...`);
    execFileSync('npm', ['run', 'build', '-w', 'services/images', '-w', 'services/tools'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  }

  const suffix = randomSuffix();
  const postgres = await connectPostgres(lifecycle, adminUrl, suffix);
  const imagesDatabaseUrl = await postgres.createDatabase('bench_images');
  const toolsDatabaseUrl = await postgres.createDatabase('bench_tools');
  const redis = await startRedis(lifecycle, workDir);
  const storageDir = path.join(workDir, 'storage');
  const toolsEnv: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    DATABASE_URL: toolsDatabaseUrl,
    REDIS_URL: redis.url,
    RATE_LIMIT_KEY_PREFIX: `bench_${suffix}`,
    ANONYMOUS_RATE_LIMIT_PER_HOUR: '2000000000',
    LOG_LEVEL: 'info',
    // Stopped at the end of the run, with no proxy to hand over to: no drain window.
    SHUTDOWN_DRAIN_MS: '0',
  };
  const imagesEnv: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    // As the images Dockerfile sets it: fewer malloc arenas for libvips' threads (peak RSS).
    MALLOC_ARENA_MAX: '2',
    DATABASE_URL: imagesDatabaseUrl,
    STORAGE_DIR: storageDir,
    THUMB_SIGNING_SECRET: randomBytes(32).toString('hex'),
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    SHUTDOWN_DRAIN_MS: '0',
  };

  // The sample directory goes in before the tools service starts: the service builds its search index
  // before it listens, so search answers from the whole directory from the first request. Seeded into a
  // running service, the index would catch up only after the first searches (stale-while-rebuild, see
  // search-engine.ts), and the judged set's first queries (target 8) would find nothing.
  log('seeding the sample tool directory and an API key...');
  const { apiKey } = await seedTools(toolsEnv);
  log('starting the stack: tools, images, redis-server, nginx...');
  const tools = await startService(lifecycle, workDir, 'tools', [process.execPath, 'services/tools/dist/src/main.js'], toolsEnv);
  // PUBLIC_BASE_URL names nginx, so nginx starts first, with the images service's port chosen in
  // advance (nginx does not need its upstreams up to start).
  const imagesPort = await freePort();
  const nginx = await startProjectNginx(lifecycle, path.join(workDir, 'nginx'), 'nginx', {
    imagesUpstreams: [`127.0.0.1:${imagesPort}`],
    toolsUpstreams: [`127.0.0.1:${tools.port}`],
    imagesPublicDir: path.join(storageDir, 'public'),
    clientMaxBodySize: '64m',
  });
  const images = await startService(
    lifecycle,
    workDir,
    'images',
    // As the images Dockerfile starts it (see there why).
    [process.execPath, '--heap-growing-percent=100', 'services/images/dist/src/main.js'],
    { ...imagesEnv, PUBLIC_BASE_URL: nginx.baseUrl },
    '/readyz',
    imagesPort,
  );

  const roles: Record<string, Role> = { 'tools node': 'node', 'images node': 'node', 'tools pg': 'postgres', 'images pg': 'postgres', redis: 'redis', nginx: 'nginx' };
  const nginxGroup = treeGroup('nginx', () => nginx.process);
  const toolsGroups: ProcessGroup[] = [treeGroup('tools node', () => tools.process), postgres.backendGroup('tools pg', toolsDatabaseUrl), treeGroup('redis', () => redis.process), nginxGroup];
  const imagesGroups: ProcessGroup[] = [treeGroup('images node', () => images.process), postgres.backendGroup('images pg', imagesDatabaseUrl), nginxGroup];

  log('seeding: image users...');
  await createImagesGroup(imagesEnv, 'bench');
  const smallToken = await createImagesUser(imagesEnv, 'bench_small', 'bench');
  const largeToken = await createImagesUser(imagesEnv, 'bench_large', 'bench');
  const uploadToken = await createImagesUser(imagesEnv, 'bench_upload', 'bench');
  const mediumToken = await createImagesUser(imagesEnv, 'bench_medium', 'bench');

  const rows: Row[] = [];
  const pair = (baselineName: string, baseline: Measured, name: string, subject: Measured): Row => {
    rows.push({ name: baselineName, measured: baseline });
    const row: Row = { name, measured: subject, baseline: baselineName, ratio: subject.rps / baseline.rps };
    rows.push(row);
    log(`  ${baselineName}: ${baseline.rps.toFixed(0)} req/s; ${name}: ${subject.rps.toFixed(0)} req/s (${row.ratio!.toFixed(2)}×)`);
    return row;
  };
  return {
    mode,
    lifecycle,
    workDir,
    storageDir,
    postgres,
    imagesDatabaseUrl,
    imagesEnv: { ...imagesEnv, PUBLIC_BASE_URL: nginx.baseUrl },
    toolsEnv,
    tools,
    images,
    front: nginx.baseUrl,
    roles,
    nginxGroup,
    toolsGroups,
    imagesGroups,
    apiKey,
    smallToken,
    largeToken,
    mediumToken,
    uploadToken,
    rows,
    checks: [],
    sections: [],
    loadSide: (groups, options, rssGroup) => ({
      async warm() {
        if (mode.warmupSec > 0 && options.amount === undefined) await load({ ...options, durationSec: mode.warmupSec });
      },
      async slice(seconds) {
        const slice = await measureSlice(groups, options.amount === undefined ? { ...options, durationSec: seconds } : options);
        if (slice.failures > 0 || slice.requests === 0 || slice.connectionErrors > 0) {
          throw new Error(
            `${options.url}: ${slice.failures} failed requests and ${slice.connectionErrors} connection errors of ${slice.requests} (status codes ${JSON.stringify(slice.statusCodes)})`,
          );
        }
        return toSlice(slice, options.url, roles, rssGroup);
      },
    }),
    scriptSide: (name, script, env) => ({
      async warm() {},
      async slice(seconds) {
        const result = await runBaselineScript<{ operations: number; seconds: number; cpuMs: number; mainThreadCpuMs: number; latenciesMs: number[] }>(lifecycle, name, script, env(seconds), {
          logFile: path.join(workDir, `${name.replace(/\W+/g, '-')}.log`),
        });
        return { requests: result.operations, seconds: result.seconds, cpuMs: { node: result.cpuMs }, nodeMainThreadMs: result.mainThreadCpuMs, latencies: result.latenciesMs };
      },
    }),
    pair,
    compare: async (baselineName, baseline, name, subject, seconds) => {
      const [measuredBaseline, measuredSubject] = await alternate([baseline, subject], { rounds: mode.rounds, seconds: seconds / mode.rounds });
      return pair(baselineName, measuredBaseline!, name, measuredSubject!);
    },
  };
}

/** The tools list pages and search queries, each checked once through nginx when a scenario uses them. */
async function toolsRequests(bench: Bench, only: Set<ScenarioName>): Promise<ToolsRequests> {
  const listPaths = Array.from({ length: TOOLS_LIST_PAGES }, (_, i) => `/api/index.php?action=tools&page=${i + 1}&limit=20`);
  const searchPaths = SEARCH_QUERIES.map((q) => `/api/index.php?action=search&q=${encodeURIComponent(q)}`);
  const keyHeader = { 'x-api-key': bench.apiKey };
  if (only.has('tools') || only.has('embedded')) {
    for (const p of [...listPaths, ...searchPaths]) await expectJson(`${bench.front}${p}`, keyHeader, (b) => b.success === true, p);
  }
  return { listPaths, searchPaths, keyHeader };
}

/** Target 1: tools list and search through nginx with the Redis limiter, against a minimal Express 5 handler. */
async function toolsScenario(bench: Bench, requests: ToolsRequests): Promise<void> {
  const { mode, lifecycle, workDir, front } = bench;
  const { listPaths, searchPaths, keyHeader } = requests;
  log('tools list and search vs a minimal Express 5 handler returning the same bytes...');
  const bodies: Record<string, string> = {};
  for (const p of [...listPaths, ...searchPaths]) {
    bodies[p] = Buffer.from(await (await fetch(`${front}${p}`, { headers: keyHeader })).arrayBuffer()).toString('base64');
  }
  const bodiesFile = path.join(workDir, 'express-bodies.json');
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  const baselineApp = await startService(
    lifecycle,
    workDir,
    'express-baseline',
    [process.execPath, '--import', 'tsx', 'bench/baselines/express-baseline.ts'],
    { NODE_ENV: 'production', BODIES_FILE: bodiesFile },
  );
  const baselineNginx = await startProjectNginx(lifecycle, path.join(workDir, 'nginx-baseline'), 'nginx (express baseline)', {
    imagesUpstreams: [`127.0.0.1:${bench.images.port}`],
    toolsUpstreams: [`127.0.0.1:${baselineApp.port}`],
    imagesPublicDir: path.join(bench.storageDir, 'public'),
    clientMaxBodySize: '64m',
  });
  const baselineGroups: ProcessGroup[] = [treeGroup('tools node', () => baselineApp.process), treeGroup('nginx', () => baselineNginx.process)];
  const options = (base: string, paths: string[]): LoadOptions => ({ url: `${base}${paths[0]}`, paths, connections: mode.connections, durationSec: mode.durationSec, headers: keyHeader });
  const listRow = await bench.compare(
    'express minimal (list bytes)',
    bench.loadSide(baselineGroups, options(baselineNginx.baseUrl, listPaths)),
    'tools list (nginx + Redis limiter)',
    bench.loadSide(bench.toolsGroups, options(front, listPaths)),
    mode.durationSec,
  );
  const searchRow = await bench.compare(
    'express minimal (search bytes)',
    bench.loadSide(baselineGroups, options(baselineNginx.baseUrl, searchPaths)),
    'tools search (nginx + Redis limiter)',
    bench.loadSide(bench.toolsGroups, options(front, searchPaths)),
    mode.durationSec,
  );
  for (const row of [listRow, searchRow]) {
    const cpu = totalCpu(row.measured);
    bench.checks.push({
      target: `1. ${row.name}: ≤ 0.35 ms CPU/request, ≥ 0.6× Express`,
      met: cpu <= 0.35 && row.ratio! >= 0.6,
      detail: `${cpu.toFixed(3)} ms CPU/request, ${row.ratio!.toFixed(2)}× (c=${mode.connections})`,
    });
  }
}

/**
 * Target 7: search at 10,000 tools with the read cache off, every judged query and the short prefixes
 * search as you type sends, timed one at a time straight to the service; with the judged set's
 * success@3 and recall@10 per kind, on the sample directory and on the 10,000 tools.
 */
/**
 * The service's resident set (from /proc), V8 heap in use and last search index build time (both from its
 * own /metrics; the heap after a collection is not forced, so it includes garbage not yet collected).
 */
async function serviceMemory(base: string, pid: number): Promise<{ rssMb: number; heapUsedMb: number; buildMs: number }> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN);
  return { rssMb: rssKb / 1024, heapUsedMb: gauge('tools_nodejs_heap_size_used_bytes') / 1024 / 1024, buildMs: gauge('tools_search_index_build_seconds') * 1000 };
}

/** Floors for the judged set at the generated directory's size (test/search-quality-10k.test.ts holds the same). */
const LARGE_SUCCESS_AT_3_FLOOR = 0.92;
const LARGE_RECALL_AT_10_FLOOR = 0.9;

function weakestKind(byKind: Map<string, QualityFigures>): string {
  const [kind, figures] = [...byKind].sort(([, a], [, b]) => Math.min(a.successAt3, a.recallAt10) - Math.min(b.successAt3, b.recallAt10))[0]!;
  return `${kind} ${figures.successAt3.toFixed(2)} / ${figures.recallAt10.toFixed(2)}`;
}

async function searchScenario(bench: Bench): Promise<void> {
  const { mode, lifecycle, workDir, postgres } = bench;
  const size = mode.searchTools.toLocaleString('en');
  log(`search latency: generating and importing a ${size}-tool directory...`);
  const databaseUrl = await postgres.createDatabase('bench_search');
  const directory = generateToolDirectory(mode.searchTools);
  const file = path.join(workDir, 'search-directory.json');
  writeFileSync(file, JSON.stringify(directory.document));
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'production', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', READ_CACHE_TTL_MS: '0', ANONYMOUS_RATE_LIMIT_PER_HOUR: '2000000000', SHUTDOWN_DRAIN_MS: '0' };
  const imported = await runAdmin('tools', env, ['import', file]);
  log(`  ${imported.trim().split('\n').join('; ')}`);
  // Visits are not part of an import: set as a long tail, then statistics and a checkpoint, as after a real import settles.
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('UPDATE tools t SET visits = v.visits FROM unnest($1::text[], $2::int[]) AS v(slug, visits) WHERE t.slug = v.slug', [
      [...directory.visits.keys()],
      [...directory.visits.values()],
    ]);
    if (rowCount !== mode.searchTools) throw new Error(`search directory: ${rowCount} tools imported, expected ${mode.searchTools}`);
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
  // The service builds its search index before it listens (open-service.ts): start to ready is mostly that build.
  const startingAt = performance.now();
  const service = await startService(lifecycle, workDir, 'tools-search', [process.execPath, 'services/tools/dist/src/main.js'], env);
  const startMs = performance.now() - startingAt;
  const base = `http://127.0.0.1:${service.port}`;
  // The first search: it would wait for a build still under way; timing starts after it.
  const firstAt = performance.now();
  await fetch(`${base}${searchPath('截图')}`).then((res) => res.text());
  const firstSearchMs = performance.now() - firstAt;
  const memory = await serviceMemory(base, service.process.pid!);
  const builtMs = memory.buildMs;
  log(`  start to ready ${(startMs / 1000).toFixed(1)} s (index build ${(builtMs / 1000).toFixed(1)} s); first search ${firstSearchMs.toFixed(0)} ms; RSS ${memory.rssMb.toFixed(0)} MB, heap used ${memory.heapUsedMb.toFixed(0)} MB`);

  const judgements = loadSearchJudgements();
  const sampleQuality = await judgedQuality(`http://127.0.0.1:${bench.tools.port}`, judgements);
  const largeQuality = await judgedQuality(base, judgements);
  log(
    `  judged set success@3 / recall@10: sample ${sampleQuality.all.successAt3.toFixed(3)} / ${sampleQuality.all.recallAt10.toFixed(3)}, ` +
      `${size} tools ${largeQuality.all.successAt3.toFixed(3)} / ${largeQuality.all.recallAt10.toFixed(3)} (weakest kind ${weakestKind(largeQuality.byKind)})`,
  );
  const queries: LatencyQuery[] = [...judgements.map(({ query, kind }) => ({ query, kind })), ...PREFIX_QUERIES];
  log(`  ${queries.length} queries × ${mode.searchSamples} timed searches, one at a time, read cache off...`);
  const groups: ProcessGroup[] = [treeGroup('tools node', () => service.process), postgres.backendGroup('tools pg', databaseUrl)];
  const before = await snapshotCpu(groups);
  const startedAt = performance.now();
  const results = await measureLatencies(base, queries, mode.searchSamples, service.process.pid!, log);
  const seconds = (performance.now() - startedAt) / 1000;
  const cpu = await cpuSince(groups, before);
  // Again after the searches: the build's garbage has been collected by now.
  const settled = await serviceMemory(base, service.process.pid!);

  const all = results.flatMap((result) => result.latenciesMs);
  const cpuMsPerRequest: Measured['cpuMsPerRequest'] = {};
  for (const [group, spent] of cpu) cpuMsPerRequest[bench.roles[group]!] = spent / all.length;
  bench.rows.push({
    name: `search, ${size} tools, read cache off (c=1)`,
    measured: { requests: all.length, rps: all.length / seconds, p50Ms: percentile(all, 50), p99Ms: percentile(all, 99), cpuMsPerRequest },
    note: `${queries.length} queries × ${mode.searchSamples}`,
  });
  const over = results.filter((result) => percentile(result.latenciesMs, 99) > 20);
  const worstP99 = Math.max(...results.map((result) => percentile(result.latenciesMs, 99)));
  // What the slow searches spent their time on: the service working (on a CPU) or waiting for a CPU.
  const onCpu = results.flatMap((result) => result.onCpuMs);
  const overOnCpu = results.filter((result) => percentile(result.onCpuMs, 99) > 20);
  const slow = results.flatMap((result) => result.latenciesMs.flatMap((wall, i) => (wall > 20 ? [{ wall, onCpu: result.onCpuMs[i]!, waiting: result.runqueueMs[i]! }] : [])));
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const slowWall = sum(slow.map((sample) => sample.wall));
  const slowShares = slow.length
    ? `; the ${slow.length} searches over 20 ms: ${((100 * sum(slow.map((sample) => sample.onCpu))) / slowWall).toFixed(0)}% of their time on a CPU, ${((100 * sum(slow.map((sample) => sample.waiting))) / slowWall).toFixed(0)}% waiting for one`
    : '';
  bench.checks.push({
    target: `7. search at ${size} tools, read cache off: p99 ≤ 20 ms for every judged query and prefix`,
    met: over.length === 0,
    detail:
      `${over.length} of ${results.length} queries over; worst p99 ${worstP99.toFixed(1)} ms; all pooled p99 ${percentile(all, 99).toFixed(1)} ms; ` +
      (onCpu.length ? `service main thread on a CPU per search: pooled p99 ${percentile(onCpu, 99).toFixed(1)} ms, ${overOnCpu.length} queries over 20 ms${slowShares}` : 'no schedstat: time on a CPU not measured'),
  });
  const kindsMet = (byKind: Map<string, QualityFigures>) => [...byKind.values()].every((figures) => figures.successAt3 >= 0.85 && figures.recallAt10 >= 0.85);
  bench.checks.push({
    target: `8. judged set on the sample directory: success@3 ≥ ${SUCCESS_AT_3_TARGET}, recall@10 ≥ ${RECALL_AT_10_TARGET}, every kind ≥ 0.85`,
    met: sampleQuality.all.successAt3 >= SUCCESS_AT_3_TARGET && sampleQuality.all.recallAt10 >= RECALL_AT_10_TARGET && kindsMet(sampleQuality.byKind),
    detail: `${sampleQuality.all.successAt3.toFixed(3)} / ${sampleQuality.all.recallAt10.toFixed(3)} over ${sampleQuality.all.queries} queries (at ${size} tools: ${largeQuality.all.successAt3.toFixed(3)} / ${largeQuality.all.recallAt10.toFixed(3)})`,
  });
  // The same judged set at the generated directory's size: popular tools must still come first among
  // hundreds of long-tail tools named with the same words. Held to the floor test/search-quality-10k.test.ts
  // holds the in-memory index to (the issue's targets are for the sample directory).
  bench.checks.push({
    target: `8b. judged set at ${size} tools: success@3 ≥ ${LARGE_SUCCESS_AT_3_FLOOR}, recall@10 ≥ ${LARGE_RECALL_AT_10_FLOOR}`,
    met: largeQuality.all.successAt3 >= LARGE_SUCCESS_AT_3_FLOOR && largeQuality.all.recallAt10 >= LARGE_RECALL_AT_10_FLOOR,
    detail: `${largeQuality.all.successAt3.toFixed(3)} / ${largeQuality.all.recallAt10.toFixed(3)} over ${largeQuality.all.queries} queries; weakest kind ${weakestKind(largeQuality.byKind)}`,
  });
  bench.sections.push(
    `Search index at ${size} tools: built in ${(builtMs / 1000).toFixed(1)} s at start, before the service listens (start to ready ${(startMs / 1000).toFixed(1)} s; the first search then took ${firstSearchMs.toFixed(0)} ms); the service after the build: RSS ${memory.rssMb.toFixed(0)} MB, heap used ${memory.heapUsedMb.toFixed(0)} MB (build garbage included); after the timed searches: RSS ${settled.rssMb.toFixed(0)} MB, heap used ${settled.heapUsedMb.toFixed(0)} MB.\n\n` +
      `Search at ${size} tools, read cache off, ${mode.searchSamples} timed searches per query, one at a time (target 7); success@3 / recall@10 of the judged set on the sample directory and on the ${size} tools:\n\n` +
      latencyTables(results, { sample: sampleQuality.byKind, large: largeQuality.byKind, sampleAll: sampleQuality.all, largeAll: largeQuality.all }, 10, size),
  );
  log(`  after the searches: RSS ${settled.rssMb.toFixed(0)} MB, heap used ${settled.heapUsedMb.toFixed(0)} MB`);
  log(`  pooled p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms; ${over.length} of ${results.length} queries with p99 over 20 ms`);
  if (onCpu.length) log(`  service main thread on a CPU per search: p50 ${percentile(onCpu, 50).toFixed(1)} ms, p99 ${percentile(onCpu, 99).toFixed(1)} ms; ${overOnCpu.length} queries with on-CPU p99 over 20 ms${slowShares}`);
}

/** Target 3: images list and keyword search, a user with many images against one with 1,000. */
async function imagesListScenario(bench: Bench): Promise<void> {
  const { mode, front } = bench;
  log(`images list: seeding ${mode.smallImages.toLocaleString('en')} and ${mode.largeImages.toLocaleString('en')} image rows...`);
  await seedImageRows(bench.imagesDatabaseUrl, 'bench_small', mode.smallImages, log);
  await seedImageRows(bench.imagesDatabaseUrl, 'bench_large', mode.largeImages, log);
  const listPaths = (keyword?: string) =>
    Array.from({ length: LIST_PAGES }, (_, i) => `/api/image.php?action=list&page=${i + 1}&limit=20${keyword ? `&keyword=${keyword}` : ''}`);
  const check = async (token: string, expectedTotal: number, keyword?: string) => {
    const body = await expectJson(`${front}${listPaths(keyword)[0]}`, { 'x-api-token': token }, (b) => b.code === 0, 'images list');
    const total = (body.data as { total: number }).total;
    if (total !== expectedTotal) throw new Error(`images list${keyword ? ` keyword=${keyword}` : ''}: total ${total}, expected ${expectedTotal}`);
  };
  await check(bench.smallToken, mode.smallImages);
  await check(bench.largeToken, mode.largeImages);
  await check(bench.smallToken, NEEDLE_MATCHES, NEEDLE);
  await check(bench.largeToken, NEEDLE_MATCHES, NEEDLE);
  const options = (token: string, keyword?: string): LoadOptions => {
    const paths = listPaths(keyword);
    return { url: `${front}${paths[0]}`, paths, connections: mode.connections, durationSec: mode.durationSec, headers: { 'x-api-token': token } };
  };
  const small = `${mode.smallImages.toLocaleString('en')} images`;
  const large = `${mode.largeImages.toLocaleString('en')} images`;
  const listRow = await bench.compare(
    `images list, ${small}`,
    bench.loadSide(bench.imagesGroups, options(bench.smallToken)),
    `images list, ${large}`,
    bench.loadSide(bench.imagesGroups, options(bench.largeToken)),
    mode.durationSec,
  );
  const searchRow = await bench.compare(
    `images keyword search, ${small}`,
    bench.loadSide(bench.imagesGroups, options(bench.smallToken, NEEDLE)),
    `images keyword search, ${large}`,
    bench.loadSide(bench.imagesGroups, options(bench.largeToken, NEEDLE)),
    mode.durationSec,
  );
  for (const row of [listRow, searchRow]) {
    bench.checks.push({
      target: `3. ${row.name}: p99 ≤ 20 ms, within 1.2× of 1,000 images`,
      met: row.measured.p99Ms <= 20 && row.ratio! >= 1 / 1.2,
      detail: `p99 ${row.measured.p99Ms.toFixed(1)} ms, ${row.ratio!.toFixed(2)}× the req/s of 1,000 images (c=${mode.connections})`,
    });
  }
}

/** Writes the two test photos and returns what the upload scenarios share. */
async function prepareUploads(bench: Bench): Promise<Uploads> {
  const sizes = [
    { label: '1280×960 JPEG', width: 1280, height: 960 },
    { label: '4000×3000 JPEG', width: 4000, height: 3000 },
  ];
  const url = `${bench.front}/api/image.php?action=upload`;
  const uploadCounts = async (): Promise<{ stored: number; pending: number }> => {
    const client = new Client({ connectionString: bench.imagesDatabaseUrl });
    await client.connect();
    try {
      const { rows: counted } = await client.query<{ stored: string; pending: string }>(
        `SELECT count(*) FILTER (WHERE i.status = 'stored') AS stored, count(*) FILTER (WHERE i.status = 'pending') AS pending
         FROM images i JOIN users u ON u.id = i.user_id WHERE u.name = 'bench_upload'`,
      );
      return { stored: Number(counted[0]!.stored), pending: Number(counted[0]!.pending) };
    } finally {
      await client.end();
    }
  };
  // A timed autocannon run stops with requests still being processed, and those must not count in the
  // next scenario: wait until nothing is pending and the count holds still.
  const storedCount = async (): Promise<number> => {
    let last = -1;
    for (;;) {
      const { stored, pending } = await uploadCounts();
      if (pending === 0 && stored === last) return stored;
      last = stored;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };
  const uploadOnce = async (file: Buffer, name: string): Promise<{ url: string }> => {
    const { next, contentType } = uniqueMultipartUploads(name, 'image/jpeg', file);
    const body = next();
    const res = await fetch(url, { method: 'POST', headers: { 'x-api-token': bench.uploadToken, 'content-type': contentType }, body });
    const answer = (await res.json()) as { code: number; msg: string; data?: { url: string } };
    if (answer.code !== 0 || !answer.data) throw new Error(`upload failed: ${JSON.stringify(answer)}`);
    return answer.data;
  };
  const photos = new Map<string, Buffer>();
  for (const size of sizes) photos.set(size.label, await writeJpeg(path.join(bench.workDir, `${size.width}x${size.height}.jpg`), size.width, size.height));
  return { sizes, photos, url, storedCount, uploadOnce };
}

/** Target 2: uploads through nginx against a minimal upload server, with the bare sharp pipeline as a third side (the physical reference). */
async function uploadScenario(bench: Bench, uploads: Uploads): Promise<void> {
  const { mode, lifecycle, workDir, postgres } = bench;
  log('uploads vs a minimal upload server, and a bare sharp pipeline in one process for reference...');
  // The baseline: the same image work behind HTTP, multipart and one INSERT, behind its own nginx
  // rendered from the same template (bench/baselines/minimal-upload-server.ts).
  const minimalDatabaseUrl = await postgres.createDatabase('bench_minimal');
  const minimalApp = await startService(
    lifecycle,
    workDir,
    'minimal-upload-server',
    [process.execPath, '--import', 'tsx', 'bench/baselines/minimal-upload-server.ts'],
    { NODE_ENV: 'production', DATABASE_URL: minimalDatabaseUrl, OUT_DIR: path.join(workDir, 'minimal-out') },
  );
  const minimalNginx = await startProjectNginx(lifecycle, path.join(workDir, 'nginx-minimal'), 'nginx (minimal upload server)', {
    imagesUpstreams: [`127.0.0.1:${minimalApp.port}`],
    toolsUpstreams: [`127.0.0.1:${bench.tools.port}`],
    imagesPublicDir: path.join(workDir, 'minimal-out'),
    clientMaxBodySize: '64m',
  });
  const minimalGroups: ProcessGroup[] = [
    treeGroup('images node', () => minimalApp.process),
    postgres.backendGroup('images pg', minimalDatabaseUrl),
    treeGroup('nginx', () => minimalNginx.process),
  ];
  for (const size of uploads.sizes) {
    const file = path.join(workDir, `${size.width}x${size.height}.jpg`);
    const bytes = uploads.photos.get(size.label)!;
    await uploads.uploadOnce(bytes, 'warm.jpg');
    // The bare pipeline, as its own process (it times its operations and reads its own CPU).
    const bare = bench.scriptSide('sharp baseline', 'bench/baselines/sharp-baseline.ts', (seconds) => ({
      IMAGE_FILE: file,
      OUT_DIR: path.join(workDir, 'sharp-out'),
      CONCURRENCY: String(mode.uploadConnections),
      DURATION_SEC: String(seconds),
    }));
    // Each upload a photo of its own (deduplication would answer a repeat at once), for both sides.
    const { next: body, contentType } = uniqueMultipartUploads('photo.jpg', 'image/jpeg', bytes);
    const uploadLoad = (url: string, headers: Record<string, string>): LoadOptions => ({
      url,
      method: 'POST',
      connections: mode.uploadConnections,
      // A smoke run counts uploads rather than time: on a busy machine one may take longer than the run.
      ...(mode.smoke ? { amount: mode.uploadConnections * 2 } : {}),
      headers: { ...headers, 'content-type': contentType },
      body,
    });
    const serviceLoad = bench.loadSide(bench.imagesGroups, uploadLoad(uploads.url, { 'x-api-token': bench.uploadToken }), 'images node');
    // A timed slice ends with uploads still in flight: each slice waits for them, so that their work
    // does not fall into the next side's slice, and checks that every answer stored an image (each
    // was HTTP 200, but an envelope may still say code 1).
    const service: Side = {
      async warm() {
        await serviceLoad.warm();
        await uploads.storedCount();
      },
      async slice(seconds) {
        const storedBefore = await uploads.storedCount();
        const slice = await serviceLoad.slice(seconds);
        const stored = (await uploads.storedCount()) - storedBefore;
        if (stored < slice.requests) throw new Error(`upload ${size.label}: ${slice.requests} answers but only ${stored} images stored`);
        return slice;
      },
    };
    const minimal = bench.loadSide(minimalGroups, uploadLoad(`${minimalNginx.baseUrl}/api/image.php?action=upload`, {}), 'images node');
    const [bareMeasured, serviceMeasured, minimalMeasured] = await alternate([bare, service, minimal], { rounds: mode.rounds, seconds: mode.uploadSec / mode.rounds });
    // Target 2 is against the minimal upload server; the bare pipeline is the physical reference beside it.
    const bareName = `bare sharp pipeline, ${size.label}`;
    bench.rows.push({ name: bareName, measured: bareMeasured!, note: 'the physical reference' });
    const minimalName = `minimal upload server, ${size.label} (c=${mode.uploadConnections})`;
    const minimalRatio = minimalMeasured!.rps / bareMeasured!.rps;
    const row = bench.pair(minimalName, minimalMeasured!, `upload ${size.label} (c=${mode.uploadConnections})`, serviceMeasured!);
    bench.rows.find((r) => r.name === minimalName)!.note = `${minimalRatio.toFixed(2)}× bare sharp`;
    const bareRatio = serviceMeasured!.rps / bareMeasured!.rps;
    row.note = `${bareRatio.toFixed(2)}× bare sharp`;
    bench.checks.push({ target: `2. ${row.name}: ≥ 0.95× the minimal upload server`, met: row.ratio! >= 0.95, detail: `${row.ratio!.toFixed(2)}× (bare sharp pipeline: ${bareRatio.toFixed(2)}×; the minimal server ${minimalRatio.toFixed(2)}× it)` });
  }
}

/** No target: what of an upload's CPU is the media work, and what the service's media module adds to bare sharp. */
async function mediaScenario(bench: Bench, uploads: Uploads): Promise<void> {
  const { mode, workDir } = bench;
  log('the media module vs the bare sharp steps, one at a time in one process...');
  const mediaSteps = (steps: 'bare' | 'service', file: string): Side =>
    bench.scriptSide(`media steps (${steps})`, 'bench/baselines/media-steps.ts', (seconds) => ({
      IMAGE_FILE: file,
      OUT_DIR: workDir,
      STEPS: steps,
      ...(mode.smoke ? { OPERATIONS: '3' } : { DURATION_SEC: String(seconds) }),
    }));
  for (const size of uploads.sizes) {
    const file = path.join(workDir, `${size.width}x${size.height}.jpg`);
    await bench.compare(
      `bare sharp steps (metadata, thumbnail), ${size.label}, c=1`,
      mediaSteps('bare', file),
      `media module (inspect, prepare, thumbnail), ${size.label}, c=1`,
      mediaSteps('service', file),
      mode.uploadSec,
    );
  }
}

/** Target 6: the images service's peak RSS under concurrent large uploads, and no temp file left. */
async function uploadRssScenario(bench: Bench, uploads: Uploads): Promise<void> {
  const { mode, imagesGroups, roles } = bench;
  const mb = (mode.rssUploadBytes / 1024 / 1024).toFixed(0);
  log(`${mode.rssUploads} concurrent ${mb} MB uploads: peak RSS of the images service...`);
  const png = await writeLargePng(path.join(bench.workDir, 'large.png'), mode.rssUploadBytes);
  // Sixteen different pictures: a repeat of the same bytes would be answered at once (deduplication).
  const { next: body, contentType } = uniqueMultipartUploads('large.png', 'image/png', png);
  const pid = bench.images.process.pid!;
  resetPeakRss(pid);
  const before = await snapshotCpu(imagesGroups);
  const storedBefore = await uploads.storedCount();
  const result = await load({ url: uploads.url, method: 'POST', connections: mode.rssUploads, amount: mode.rssUploads, headers: { 'x-api-token': bench.uploadToken, 'content-type': contentType }, body });
  const cpu = await cpuSince(imagesGroups, before);
  const peak = peakRssBytes(pid) ?? NaN;
  const stored = (await uploads.storedCount()) - storedBefore;
  if (result.non2xx + result.errors + result.timeouts > 0 || stored !== mode.rssUploads) {
    throw new Error(`large uploads: ${stored} of ${mode.rssUploads} stored, ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  const leftovers = readdirSync(path.join(bench.storageDir, 'tmp'));
  const measured: Measured = {
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMsPerRequest: Object.fromEntries([...cpu].filter(([g]) => roles[g]).map(([g, ms]) => [roles[g]!, ms / result.requests.total])),
    peakRssBytes: peak,
  };
  const note = `${leftovers.length} temp files left`;
  bench.rows.push({ name: `${mode.rssUploads} concurrent ${mb} MB uploads`, measured, note });
  bench.checks.push({
    target: `6. images service peak RSS ≤ 300 MB under ${mode.rssUploads} concurrent ${mb} MB uploads, no temp file left`,
    met: peak <= 300 * 1024 * 1024 && leftovers.length === 0,
    detail: `${(peak / 1024 / 1024).toFixed(0)} MB, ${note}`,
  });
  log(`  peak RSS ${(peak / 1024 / 1024).toFixed(0)} MB, ${note}`);
}

/** Target 4: `/i/` through the project's nginx against nginx serving the same file statically. */
async function staticScenario(bench: Bench, uploads: Uploads): Promise<void> {
  const { mode, workDir, front } = bench;
  log('/i/ through the project nginx vs nginx serving the same file statically...');
  // A small image (thumbnail-sized): with a large one autocannon, not nginx, sets the pace.
  const small = await writeJpeg(path.join(workDir, 'small.jpg'), 320, 240);
  const { url } = await uploads.uploadOnce(small, 'static.jpg');
  const filePath = new URL(url).pathname;
  const staticNginx = await startStaticNginx(bench.lifecycle, path.join(workDir, 'nginx-static'), path.join(bench.storageDir, 'public'));
  const staticGroups: ProcessGroup[] = [treeGroup('nginx', () => staticNginx.process)];
  for (const base of [staticNginx.baseUrl, front]) {
    const res = await fetch(`${base}${filePath}`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${base}${filePath}: HTTP ${res.status}`);
  }
  const options = (base: string): LoadOptions => ({ url: `${base}${filePath}`, connections: mode.connections, durationSec: mode.durationSec });
  const kb = (small.length / 1024).toFixed(0);
  const row = await bench.compare(
    `nginx static (${kb} KB JPEG)`,
    bench.loadSide(staticGroups, options(staticNginx.baseUrl)),
    `/i/ through the project nginx`,
    bench.loadSide([bench.nginxGroup], options(front)),
    mode.durationSec,
  );
  bench.checks.push({ target: '4. /i/ ≥ 0.9× nginx static', met: row.ratio! >= 0.9, detail: `${row.ratio!.toFixed(2)}×` });
}

/** Target 5: the embedded `npm start` against the production stack, same tools requests. */
async function embeddedScenario(bench: Bench, requests: ToolsRequests): Promise<void> {
  const { mode, workDir, front } = bench;
  log('embedded npm start vs the production stack...');
  const dataDir = path.join(workDir, 'embedded');
  const embedded = await startService(bench.lifecycle, workDir, 'embedded', [process.execPath, '--import', 'tsx', 'scripts/start.ts'], {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    DEFAULT_RATE_LIMIT_PER_HOUR: '2000000000',
    ANONYMOUS_RATE_LIMIT_PER_HOUR: '2000000000',
  });
  const credentials = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { apiKey: string };
  const embeddedBase = `http://127.0.0.1:${embedded.port}`;
  const embeddedHeader = { 'x-api-key': credentials.apiKey };
  for (const p of [...requests.listPaths, ...requests.searchPaths]) await expectJson(`${embeddedBase}${p}`, embeddedHeader, (b) => b.success === true, `embedded ${p}`);
  const embeddedGroups: ProcessGroup[] = [treeGroup('tools node', () => embedded.process)];
  for (const [what, paths] of [
    ['list', requests.listPaths],
    ['search', requests.searchPaths],
  ] as const) {
    const options = (base: string, headers: Record<string, string>): LoadOptions => ({ url: `${base}${paths[0]}`, paths: [...paths], connections: mode.connections, durationSec: mode.durationSec, headers });
    const row = await bench.compare(
      `production tools ${what}`,
      bench.loadSide(bench.toolsGroups, options(front, requests.keyHeader)),
      `embedded npm start, tools ${what}`,
      bench.loadSide(embeddedGroups, options(embeddedBase, embeddedHeader)),
      mode.durationSec,
    );
    bench.checks.push({ target: `5. embedded tools ${what} within 2× of production`, met: row.ratio! >= 0.5, detail: `${row.ratio!.toFixed(2)}×` });
  }
}

async function main(): Promise<void> {
  const { mode, only, build, write } = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const lifecycle = createLifecycle(log);
  lifecycle.onCleanup('work folder', () => rmSync(workDir, { recursive: true, force: true }));

  try {
    const bench = await startBench(mode, lifecycle, workDir, build);
    const tools = await toolsRequests(bench, only);
    if (only.has('tools')) await toolsScenario(bench, tools);
    if (only.has('search')) await searchScenario(bench);
    if (only.has('images-list')) await imagesListScenario(bench);
    // After images-list: its 1,000,000-image user is reused.
    if (only.has('keyword-search')) await keywordSearchScenario(bench, log);
    // The two photos are written on every run; the upload and media scenarios read them.
    const uploads = await prepareUploads(bench);
    if (only.has('upload')) await uploadScenario(bench, uploads);
    if (only.has('media')) await mediaScenario(bench, uploads);
    if (only.has('upload-rss')) await uploadRssScenario(bench, uploads);
    if (only.has('static')) await staticScenario(bench, uploads);
    if (only.has('embedded')) await embeddedScenario(bench, tools);
    if (only.has('replicas')) await replicasScenario(bench, uploads, log);

    const finishedAt = new Date();
    const report = [
      table(bench.rows),
      '',
      targetsTable(bench.checks),
      '',
      ...bench.sections.flatMap((section) => [section, '']),
      `Run: \`${command}\` at ${codeVersion()} on ${machineLine()}; ${startedAt.toISOString()} to ${finishedAt.toISOString()}.`,
    ].join('\n');
    process.stdout.write(`\n${report}\n`);
    if (write) writeResults(report, mode);
    // Missed targets are findings, not failures: the bench fails only when it could not measure.
  } finally {
    await lifecycle.cleanup();
  }
}

/** The commit measured, marked when the work tree had changes. */
function codeVersion(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
    return `commit ${commit}${changed ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'an unknown commit (no git)';
  }
}

/** Replaces the run in bench/results.md, keeping its introduction: the runs before are in git. */
function writeResults(report: string, mode: Mode): void {
  const file = path.join(ROOT, 'bench', 'results.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const intro = previous.split('\n## ')[0]!.trim() || '# Benchmark results';
  const heading = `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${os.cpus().length} cores${mode.smoke ? ' (smoke)' : ''}`;
  writeFileSync(file, `${intro}\n\n${heading}\n\n${report}\n`.replace(/\n{3,}/g, '\n\n'));
  log(`wrote ${path.relative(ROOT, file)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
