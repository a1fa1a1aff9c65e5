/**
 * `npm run bench:side-by-side -- <scenario> <build A> <build B> [--rounds N] [--slice seconds] [--images N] [--node-args-a "..."] [--node-args-b "..."]`
 *
 * Two builds of one service on one stack, the load alternating between them in short slices: the way
 * to tell a change from this machine's drift, which moves separate runs by more than most changes.
 * A build is a folder holding a service's compiled `src/` (e.g. `services/tools/dist`, or a copy of it
 * made before a change: `cp -r services/tools/dist services/tools/dist-a`); it must sit beside `dist`
 * so that it finds the same node_modules and data files. Both builds are started with
 * NODE_ENV=production on one Postgres database (and, for tools, one private redis-server), and the load
 * goes straight to each one's port at c=16 (uploads: c=4), A then B in odd rounds and B then A in
 * even ones (bench/lib/alternate.ts), after a warm-up of each. Prints each slice and the medians: req/s, p99 latency, the service's CPU per request (and its main thread's), and the
 * CPU per request of the database's backends. Everything it started or created is removed at the end.
 * `--node-args-a`/`-b` add Node flags to one build's process (one build twice: a flag side by side).
 *
 * Scenarios: tools-list, tools-search (the main bench's requests), images-list, images-search (a user
 * with --images images, 1,000,000 by default, pages 1-5), upload (the 1280×960 JPEG, each upload's bytes its own).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createImagesGroup, createImagesUser, NEEDLE, seedImageRows, seedTools, uniqueMultipartUploads, writeJpeg } from './lib/dataset';
import { createLifecycle } from './lib/lifecycle';
import { alternate, type Side } from './lib/alternate';
import { load, measureSlice, type LoadOptions } from './lib/load';
import type { ProcessGroup } from './lib/proc';
import { connectPostgres, randomSuffix, ROOT, startRedis, startService, treeGroup, type Service } from './lib/stack';

const SCENARIOS = ['tools-list', 'tools-search', 'images-list', 'images-search', 'upload'] as const;
type Scenario = (typeof SCENARIOS)[number];
const SEARCH_QUERIES = ['截图', 'jietu', 'jt', 'markdown', 'json', '图片', 'code', 'pdf', '翻译', 'editor', 'git', 'api'];

function usage(problem?: string): never {
  if (problem) process.stderr.write(`side-by-side: ${problem}\n`);
  process.stderr.write(`usage: npm run bench:side-by-side -- <${SCENARIOS.join('|')}> <build A> <build B> [--rounds N] [--slice seconds] [--images N]\n`);
  process.exit(problem ? 2 : 0);
}

function parseArgs(argv: string[]) {
  const positional: string[] = [];
  let rounds = 6;
  let sliceSec = 5;
  let images = 1_000_000;
  const nodeArgs: [string[], string[]] = [[], []];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const number = () => {
      const value = Number(argv[++i]);
      if (!(value > 0)) usage(`${arg} takes a positive number`);
      return value;
    };
    if (arg === '--rounds') rounds = Math.floor(number());
    else if (arg === '--slice') sliceSec = number();
    else if (arg === '--images') images = Math.floor(number());
    else if (arg === '--node-args-a' || arg === '--node-args-b') nodeArgs[arg.endsWith('a') ? 0 : 1] = (argv[++i] ?? '').split(' ').filter(Boolean);
    else if (arg === '--help' || arg === '-h') usage();
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const [scenario, a, b] = positional;
  if (positional.length !== 3 || !(SCENARIOS as readonly string[]).includes(scenario!)) usage();
  const builds = [a!, b!].map((build) => path.resolve(build));
  for (const build of builds) if (!existsSync(path.join(build, 'src', 'main.js'))) usage(`${build} holds no src/main.js`);
  return { scenario: scenario as Scenario, builds, rounds, sliceSec, images, nodeArgs };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const started = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

async function main(): Promise<void> {
  const { scenario, builds, rounds, sliceSec, images, nodeArgs: extraNodeArgs } = parseArgs(process.argv.slice(2));
  const service = scenario.startsWith('tools') ? 'tools' : 'images';
  const lifecycle = createLifecycle(log);
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'side-by-side-'));
  lifecycle.onCleanup('work folder', () => rmSync(workDir, { recursive: true, force: true }));
  try {
    const suffix = randomSuffix();
    const postgres = await connectPostgres(lifecycle, process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', suffix);
    const databaseUrl = await postgres.createDatabase(`sbs_${service}`);
    let env: NodeJS.ProcessEnv;
    let nodeArgs: string[] = [];
    if (service === 'tools') {
      const redis = await startRedis(lifecycle, workDir);
      env = { NODE_ENV: 'production', DATABASE_URL: databaseUrl, REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: `sbs_${suffix}`, ANONYMOUS_RATE_LIMIT_PER_HOUR: '2000000000', LOG_LEVEL: 'info' };
    } else {
      env = {
        NODE_ENV: 'production',
        MALLOC_ARENA_MAX: '2',
        DATABASE_URL: databaseUrl,
        STORAGE_DIR: path.join(workDir, 'storage'),
        THUMB_SIGNING_SECRET: randomBytes(32).toString('hex'),
        TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
        LOG_LEVEL: 'info',
      };
      nodeArgs = ['--heap-growing-percent=100']; // as the images Dockerfile starts it
    }

    // One after the other: the first start migrates the database.
    const servers: Service[] = [];
    for (const [i, build] of builds.entries()) {
      log(`starting ${service} from ${path.relative(ROOT, build)} (${'AB'[i]}) ${extraNodeArgs[i]!.join(' ')}...`);
      servers.push(await startService(lifecycle, workDir, `${service}-${'ab'[i]}`, [process.execPath, ...nodeArgs, ...extraNodeArgs[i]!, path.join(build, 'src', 'main.js')], env));
    }

    log('seeding...');
    let request: (port: number) => LoadOptions;
    if (service === 'tools') {
      const { apiKey } = await seedTools(env);
      const paths =
        scenario === 'tools-list'
          ? Array.from({ length: 13 }, (_, i) => `/api/index.php?action=tools&page=${i + 1}&limit=20`)
          : SEARCH_QUERIES.map((q) => `/api/index.php?action=search&q=${encodeURIComponent(q)}`);
      request = (port) => ({ url: `http://127.0.0.1:${port}${paths[0]}`, paths, connections: 16, headers: { 'x-api-key': apiKey } });
    } else {
      await createImagesGroup(env, 'bench');
      const token = await createImagesUser(env, 'bench_user', 'bench');
      if (scenario === 'upload') {
        const photo = await writeJpeg(path.join(workDir, 'photo.jpg'), 1280, 960);
        // Each upload a photo of its own: deduplication would answer a repeat at once.
        const { next: body, contentType } = uniqueMultipartUploads('photo.jpg', 'image/jpeg', photo);
        request = (port) => ({
          url: `http://127.0.0.1:${port}/api/image.php?action=upload`,
          connections: 4,
          method: 'POST',
          headers: { 'x-api-token': token, 'content-type': contentType },
          body,
        });
      } else {
        await seedImageRows(databaseUrl, 'bench_user', images, log);
        const keyword = scenario === 'images-search' ? `&keyword=${NEEDLE}` : '';
        const paths = Array.from({ length: 5 }, (_, i) => `/api/image.php?action=list&page=${i + 1}&limit=20${keyword}`);
        request = (port) => ({ url: `http://127.0.0.1:${port}${paths[0]}`, paths, connections: 16, headers: { 'x-api-token': token } });
      }
    }

    const results = servers.map(() => ({ rps: [] as number[], p99: [] as number[], node: [] as number[], mainThread: [] as number[], postgres: [] as number[] }));
    // Each build is a side of alternate(): A then B in odd rounds, B then A in even ones, so neither
    // always runs right after the other. Each slice is kept, for the medians.
    const sides: Side[] = servers.map((server, i) => ({
      async warm() {
        await load({ ...request(server.port), durationSec: 3 });
      },
      async slice(seconds) {
        const groups: ProcessGroup[] = [treeGroup('node', () => server.process), postgres.backendGroup('postgres', databaseUrl)];
        const slice = await measureSlice(groups, { ...request(server.port), durationSec: seconds });
        if (slice.failures > 0 || slice.connectionErrors > 0 || slice.requests === 0) {
          throw new Error(`${'AB'[i]}: ${slice.failures} failed requests and ${slice.connectionErrors} connection errors of ${slice.requests} (${JSON.stringify(slice.statusCodes)})`);
        }
        const rps = slice.requests / (slice.seconds || 1);
        const perRequest = (ms: number | undefined) => (ms ?? 0) / slice.requests;
        const node = perRequest(slice.cpuMs.get('node'));
        const mainThread = perRequest(slice.mainThreadCpuMs.get('node'));
        const pg = perRequest(slice.cpuMs.get('postgres'));
        const r = results[i]!;
        r.rps.push(rps);
        r.p99.push(slice.p99Ms);
        r.node.push(node);
        r.mainThread.push(mainThread);
        r.postgres.push(pg);
        log(`round ${r.rps.length}: ${'AB'[i]} ${rps.toFixed(0)} req/s, p99 ${slice.p99Ms} ms, node ${node.toFixed(3)} ms (main thread ${mainThread.toFixed(3)}), postgres ${pg.toFixed(3)} ms`);
        return { requests: slice.requests, seconds: slice.seconds, cpuMs: { node: slice.cpuMs.get('node'), postgres: slice.cpuMs.get('postgres') }, latencies: { raw: slice.raw, url: request(server.port).url } };
      },
    }));
    await alternate(sides, { rounds, seconds: sliceSec });
    const summary = results.map(
      (r, i) =>
        `${'AB'[i]} (${path.relative(ROOT, builds[i]!)}${extraNodeArgs[i]!.length ? ` ${extraNodeArgs[i]!.join(' ')}` : ''}): ${median(r.rps).toFixed(0)} req/s, p99 ${median(r.p99)} ms, node ${median(r.node).toFixed(3)} ms (main thread ${median(r.mainThread).toFixed(3)}), postgres ${median(r.postgres).toFixed(3)} ms per request`,
    );
    const ratio = median(results[1]!.rps) / median(results[0]!.rps);
    process.stdout.write(
      `${scenario}, medians of ${rounds} rounds of ${sliceSec} s (${new Date().toISOString()}):\n${summary.join('\n')}\nB/A req/s ${ratio.toFixed(3)}; B/A node CPU ${(median(results[1]!.node) / median(results[0]!.node)).toFixed(3)}\n`,
    );
  } finally {
    await lifecycle.cleanup();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`side-by-side failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
