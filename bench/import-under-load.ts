/**
 * "An import never stalls the website": the site's and API's latency while an editor imports 10,000 tools
 * through the admin (upload, dry run, apply), against the same load with no import, on the same machine
 * in the same run (baseline before and after the import).
 *
 *   npx tsx bench/import-under-load.ts [--tools 10000] [--seconds 15] [--connections 8] [--database pglite|postgres] [--profile DIR]
 *
 * --profile DIR: the service runs profiled (bench/lib/cpu-profile.cjs; --cpu-prof is refused in NODE_OPTIONS), its
 * .cpuprofile written into DIR when it stops. Every run
 * also lists the import phase's slowest requests with their paths and start times: every path slow at the same
 * moment is a stalled event loop, only the paths that read the database a waited-on database.
 *
 * pglite (the default) is `npm start`'s embedded database, one connection for everything; postgres uses a
 * fresh database on BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped after.
 * The directory holds the same 10,000 tools in every phase; the import changes every tool's description,
 * so each of its batches moves the catalog revision and empties the page caches, as a real one does. The
 * load includes search and tag pages, whose index each batch makes stale (a rebuild runs meanwhile).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { Client } from 'pg';
import { migrateToLatest, openDb } from '@platform/kit';
import { serviceProcesses, stopMain } from '@platform/kit/testing';
import { migrationSource } from '../services/tools/src/db/migration-source';
import { runAdminCommand } from '../services/tools/src/admin/commands';
import { createCatalogRepository } from '../services/tools/src/catalog/catalog-repository';
import { runImport } from '../services/tools/src/catalog/importer';
import { generateToolDirectory } from '../services/tools/src/catalog/search-generated-directory';
import { ROOT } from './lib/stack';

const { values } = parseArgs({
  options: {
    tools: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '15' },
    connections: { type: 'string', default: '8' },
    database: { type: 'string', default: 'pglite' },
    profile: { type: 'string' },
  },
});
const TOOLS = Number(values.tools);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Phase {
  name: string;
  latenciesMs: number[];
  /** The slowest requests: path, start (s into the phase), ms. */
  slowest: { path: string; at: number; ms: number }[];
  errors: number;
  seconds: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** CONNECTIONS workers, each one request at a time over the paths in turn, until `until` resolves. */
async function underLoad(name: string, base: string, paths: string[], until: Promise<unknown>): Promise<Phase> {
  const agent = new Agent({ connections: CONNECTIONS, keepAliveTimeout: 30_000 });
  const latenciesMs: number[] = [];
  const timed: { path: string; at: number; ms: number }[] = [];
  let errors = 0;
  let stop = false;
  void until.finally(() => (stop = true));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (!stop) {
        const pathname = paths[next++ % paths.length]!;
        const begin = performance.now();
        try {
          const res = await request(`${base}${pathname}`, { dispatcher: agent });
          await res.body.dump();
          if (res.statusCode >= 500) errors += 1;
        } catch {
          errors += 1;
        }
        latenciesMs.push(performance.now() - begin);
        timed.push({ path: pathname, at: (begin - started) / 1000, ms: performance.now() - begin });
      }
    }),
  );
  await agent.close();
  const slowest = timed.sort((a, b) => b.ms - a.ms).slice(0, 12);
  return { name, latenciesMs, slowest, errors, seconds: (performance.now() - started) / 1000 };
}

function row(phase: Phase): string {
  const sorted = [...phase.latenciesMs].sort((a, b) => a - b);
  const f = (value: number) => value.toFixed(1);
  return `| ${phase.name} | ${phase.seconds.toFixed(1)} | ${sorted.length} | ${(sorted.length / phase.seconds).toFixed(0)} | ${f(percentile(sorted, 50))} | ${f(percentile(sorted, 99))} | ${f(sorted.at(-1) ?? NaN)} | ${phase.errors} |`;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-import-'));
  let databaseUrl = `pglite:${dir}/db`;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (values.database === 'postgres') {
    const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const name = `bench_import_${process.pid}`;
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const dropper = new Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    };
  }
  const directory = generateToolDirectory(TOOLS).document;
  try {
    // The directory and an editor, written before the service starts (the embedded database has one owner).
    const db = await openDb(databaseUrl.startsWith('pglite:') ? { kind: 'pglite-dir', dir: `${dir}/db` } : { kind: 'postgres', url: databaseUrl }, { migrationSource });
    await migrateToLatest(db);
    const seeded = await runImport(createCatalogRepository(db), { categories: directory.categories.map((fields, i) => ({ row: i + 1, fields: { ...fields } })), tools: directory.tools.map((fields, i) => ({ row: i + 1, fields: { ...fields } })) });
    log(`seeded ${seeded.tools.created} tools in ${directory.categories.length} categories`);
    const quiet = () => undefined;
    await runAdminCommand(['editor:add', 'bench', '--password-stdin'], { db, defaultRateLimitPerHour: 1000, input: 'bench password 1\n', out: quiet, err: quiet });
    const key: string[] = [];
    await runAdminCommand(['key:create', '--name', 'bench', '--limit', '999999999'], { db, defaultRateLimitPerHour: 1000, out: (line) => key.push(line), err: quiet });
    log('editor and key created');
    await db.destroy();
    log('database closed; starting the service');
    const apiKey = /key: (tk_\S+)/.exec(key.join('\n'))![1]!;

    const { startMain } = serviceProcesses(path.join(ROOT, 'services/tools'));
    // LOG_LEVEL warn keeps request logs out of the measurement, and with them the "listening" line: a fixed port, polled.
    const port = 20000 + (process.pid % 20000);
    const main = startMain({ DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: '', LINK_CHECK: 'off', ICON_FETCH: 'off', ANONYMOUS_RATE_LIMIT_PER_HOUR: '1000000000', ...(values.profile ? { NODE_OPTIONS: `--require ${path.join(ROOT, 'bench/lib/cpu-profile.cjs')}`, BENCH_PROFILE_DIR: path.resolve(values.profile) } : {}) });
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let ready = false; !ready; ) {
        ready = await fetch(`${base}/readyz`).then((res) => res.ok, () => false);
        if (!ready) await new Promise((resolve) => setTimeout(resolve, 200));
        if (main.child.exitCode !== null) throw new Error(`the service exited:\n${main.output()}`);
      }
      const slugs = directory.tools.map((tool) => tool.slug);
      const paths: string[] = [];
      for (let i = 0; i < 400; i++) {
        const category = directory.categories[i % directory.categories.length]!.slug;
        const tool = directory.tools[(i * 37) % directory.tools.length]!;
        paths.push(
          [
            '/',
            `/category/${category}?page=${1 + (i % 5)}`,
            `/tool/${slugs[(i * 37) % slugs.length]}`,
            `/api/index.php?action=tools&page=${1 + (i % 20)}&api_key=${apiKey}`,
            // Search pages: answered from the in-memory index, which the import's batches keep making stale.
            `/search?q=${encodeURIComponent(tool.name.slice(0, 2 + (i % 3)))}`,
            `/tag/${encodeURIComponent(tool.tags[0] ?? 'ai')}`,
          ][i % 6]!,
        );
      }

      // Sign in as the editor would.
      let cookies = '';
      const keepCookies = (res: Response) => {
        for (const line of res.headers.getSetCookie()) cookies = [...cookies.split('; ').filter((c) => c && !c.startsWith(line.split('=')[0]!)), line.split(';')[0]].join('; ');
      };
      const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)![1]!;
      const signInPage = await fetch(`${base}/admin/`);
      keepCookies(signInPage);
      const signedIn = await fetch(`${base}/admin/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'bench', password: 'bench password 1', csrf: csrfOf(await signInPage.text()), next: '/admin/import' }),
      });
      keepCookies(signedIn);
      const csrf = csrfOf(await (await fetch(`${base}/admin/import`, { headers: { cookie: cookies } })).text());

      const changed = { categories: directory.categories, tools: directory.tools.map((tool) => ({ ...tool, description: `${tool.description}（更新）` })) };
      const waitForRun = async (location: string) => {
        for (;;) {
          // A poll that fails (a connection reset under load) is tried again, as the refreshing page would be.
          const page = await fetch(`${base}${location}`, { headers: { cookie: cookies } }).then((res) => res.text(), (error: Error) => `failed: ${error.message} http-equiv="refresh"`);
          if (!page.includes('http-equiv="refresh"')) return page;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      };
      const importThroughAdmin = async () => {
        const form = new FormData();
        form.set('csrf', csrf);
        form.set('import_file', new Blob([JSON.stringify(changed)], { type: 'application/json' }), 'directory.json');
        const started = performance.now();
        const uploaded = await fetch(`${base}/admin/import`, { method: 'POST', body: form, redirect: 'manual', headers: { cookie: cookies } });
        const dryRun = uploaded.headers.get('location');
        if (uploaded.status !== 303 || !dryRun) throw new Error(`upload answered ${uploaded.status}:\n${(await uploaded.text()).slice(0, 2000)}`);
        log(`dry run ${dryRun} started`);
        await waitForRun(dryRun);
        log(`dry run done after ${((performance.now() - started) / 1000).toFixed(1)} s`);
        const dryRunSeconds = (performance.now() - started) / 1000;
        const applied = await fetch(`${base}${dryRun}/apply`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf }),
        });
        const report = await waitForRun(applied.headers.get('location')!);
        if (!report.includes('导入完成')) throw new Error(`the import did not finish:\n${report.slice(0, 2000)}`);
        return { dryRunSeconds, totalSeconds: (performance.now() - started) / 1000 };
      };

      const seconds = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));
      log(`service at ${base}; warming up`);
      await underLoad('warm-up', base, paths, seconds(3));
      log('measuring');
      const before = await underLoad('no import (before)', base, paths, seconds(SECONDS));
      let timing = { dryRunSeconds: 0, totalSeconds: 0 };
      const during = await underLoad(`during the import of ${TOOLS} tools`, base, paths, importThroughAdmin().then((t) => (timing = t)));
      const after = await underLoad('no import (after)', base, paths, seconds(SECONDS));

      log(`\ndatabase: ${values.database}; ${CONNECTIONS} connections; ${os.cpus().length} CPUs; load ${os.loadavg()[0]!.toFixed(1)} (1 min)`);
      log(`import through the admin: dry run ${timing.dryRunSeconds.toFixed(1)} s, dry run + apply ${timing.totalSeconds.toFixed(1)} s`);
      log('\n| phase | s | requests | req/s | p50 ms | p99 ms | max ms | 5xx or failed |\n|---|---|---|---|---|---|---|---|');
      for (const phase of [before, during, after]) log(row(phase));
      log(`\nslowest requests during the import (start s, ms, path):`);
      for (const slow of during.slowest) log(`  ${slow.at.toFixed(2)}  ${slow.ms.toFixed(0)}  ${slow.path}`);
    } catch (error) {
      log(`service exit code: ${String(main.child.exitCode)}`);
      await stopMain(main);
      log(`service output:\n${main.output().slice(-3000)}\n${(await main.exit).stderr.slice(-3000)}`);
      throw error;
    } finally {
      if (values.profile && main.child.exitCode === null) {
        // stopMain kills outright; the profile is written on SIGTERM, so ask first and wait for the file.
        const written = () => fs.readdirSync(values.profile!).some((name) => name === `service-${main.child.pid}.cpuprofile`);
        main.child.kill('SIGTERM');
        for (let waited = 0; waited < 20_000 && !written(); waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
        log(`profile: ${path.join(path.resolve(values.profile), `service-${main.child.pid}.cpuprofile`)}`);
      }
      if (main.child.exitCode === null && main.child.signalCode === null) await stopMain(main);
    }
  } finally {
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
