/**
 * Link health (src/links/) and the background jobs (src/jobs/): against tool sites started on loopback.
 */
import type http from 'node:http';
import sharp from 'sharp';
import { runAdminCommand } from '../src/admin/commands';
import { createIconRepository } from '../src/icons/icon-repository';
import { startBackgroundJobs } from '../src/jobs/background-jobs';
import { createJobLease } from '@platform/kit';
import { createLinkChecker } from '../src/links/link-checker';
import { createLinkRepository } from '../src/links/link-repository';
import { createFetcher, type Fetcher, type FetcherOptions } from '../src/outbound/fetcher';
import { openHarness, silentLogger, type Harness } from './support/harness';
import { PUBLIC_TEST_HOST, startSite, TEST_ALLOW_CIDRS, type LoopbackSite } from './support/loopback-site';

let harness: Harness;
const sites: LoopbackSite[] = [];
const fetchers: Fetcher[] = [];
const clock = new Date('2026-11-27T12:00:00Z');

beforeAll(async () => {
  harness = await openHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await harness.db.raw('TRUNCATE job_leases');
  await harness.db('categories').insert({ slug: 'dev', name: '开发' });
});
afterEach(async () => {
  await Promise.all(fetchers.splice(0).map((fetcher) => fetcher.close()));
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

async function site(handler: http.RequestListener): Promise<LoopbackSite> {
  const started = await startSite(handler);
  sites.push(started);
  return started;
}

async function addTool(slug: string, url: string): Promise<void> {
  const categoryId = (await harness.db('categories').where({ slug: 'dev' }).first('id')).id as number;
  await harness.db('tools').insert({ slug, name: slug, description: 'd', url, category_id: categoryId });
}

function checker(options: FetcherOptions = {}) {
  const fetcher = createFetcher({ allowCidrs: TEST_ALLOW_CIDRS, timeoutMs: 3000, ...options });
  fetchers.push(fetcher);
  return createLinkChecker({ links: createLinkRepository(harness.db), fetcher, intervalHours: 24, retryDelaysMs: [0, 0], now: () => clock });
}

const checkAll = async (options?: FetcherOptions) => {
  const outcomes = await checker(options).check(await createLinkRepository(harness.db).allTargets());
  return Object.fromEntries(outcomes.map(({ target, probe }) => [target.slug, [probe.status, probe.reason, probe.httpStatus]]));
};

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdminCommand(argv, {
    db: harness.db,
    defaultRateLimitPerHour: 1000,
    outbound: { allowCidrs: TEST_ALLOW_CIDRS, timeoutMs: 3000 },
    linkCheckIntervalHours: 24,
    linkRetryDelaysMs: [0],
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { status, out, err };
}

describe('link checks', () => {
  it('when sites answer, then each link gets its verdict: ok, broken (404, 410, refused, private), unknown (blocked, challenge, timeout)', async () => {
    const fine = await site((_req, res) => res.writeHead(200).end('ok'));
    const noHead = await site((req, res) => res.writeHead(req.method === 'HEAD' ? 405 : 200).end());
    const gone = await site((req, res) => res.writeHead(req.url === '/gone' ? 410 : 404).end());
    const walled = await site((req, res) => res.writeHead(req.url === '/challenge' ? 503 : 403, req.url === '/challenge' ? { 'cf-mitigated': 'challenge' } : {}).end());
    const throttled = await site((_req, res) => res.writeHead(429, { 'retry-after': '3600' }).end());
    const silent = await site(() => undefined);
    const closed = await site((_req, res) => res.end());
    await closed.close();
    sites.splice(sites.indexOf(closed), 1);
    await addTool('fine', `${fine.origin}/`);
    await addTool('no-head', `${noHead.origin}/`);
    await addTool('missing', `${gone.origin}/page`);
    await addTool('gone', `${gone.origin}/gone`);
    await addTool('walled', `${walled.origin}/`);
    await addTool('challenged', `${walled.origin}/challenge`);
    await addTool('throttled', `${throttled.origin}/`);
    await addTool('silent', `${silent.origin}/`);
    await addTool('refused', `http://${PUBLIC_TEST_HOST}:${closed.port}/`);
    await addTool('private', 'http://127.0.0.1:9/');
    await addTool('metadata', 'http://169.254.169.254/latest/meta-data/');
    await addTool('no-name', 'https://no-such-host.test/');
    // Names resolve through this hook (every other tool here is an address): this one does not exist.
    const nxdomain = async (hostname: string) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };

    expect(await checkAll({ timeoutMs: 1500, resolve: nxdomain })).toEqual({
      fine: ['ok', 'ok', 200],
      'no-head': ['ok', 'ok', 200],
      missing: ['broken', 'http_404', 404],
      gone: ['broken', 'http_410', 410],
      walled: ['unknown', 'blocked', 403],
      challenged: ['unknown', 'blocked', 503],
      throttled: ['unknown', 'blocked', 429],
      silent: ['unknown', 'timeout', null],
      refused: ['broken', 'refused', null],
      private: ['broken', 'private_address', null],
      metadata: ['broken', 'private_address', null],
      'no-name': ['broken', 'dns', null],
    });
    // HEAD first, GET when HEAD fails; a 404 is asked three times (two retries); a blocking site once.
    expect(fine.requests).toEqual(['HEAD /']);
    expect(noHead.requests).toEqual(['HEAD /', 'GET /']);
    expect(gone.requests.filter((request) => request.endsWith('/page'))).toEqual(['HEAD /page', 'GET /page', 'HEAD /page', 'GET /page', 'HEAD /page', 'GET /page']);
    expect(throttled.requests).toEqual(['HEAD /', 'GET /']);
    expect(silent.requests).toEqual(['HEAD /', 'HEAD /', 'HEAD /']);

    const links = createLinkRepository(harness.db);
    expect((await links.listLinkHealth({ status: 'broken' })).map((row) => row.slug)).toEqual(['missing', 'gone', 'refused', 'private', 'metadata', 'no-name']);
    expect(await links.countByStatus()).toEqual({ ok: 2, broken: 6, unknown: 4 });
    const [fineHealth] = (await links.listLinkHealth({ status: 'ok' })).filter((row) => row.slug === 'fine');
    expect(fineHealth).toMatchObject({ consecutiveFailures: 0, lastOkAt: clock, checkedAt: clock });
    // Due again after the interval when ok (24 h), after a quarter of it when not.
    expect(await links.dueTargets(new Date('2026-11-27T17:59:00Z'), 100)).toEqual([]);
    expect((await links.dueTargets(new Date('2026-11-27T18:00:00Z'), 100)).map((target) => target.slug).sort()).toEqual(
      ['missing', 'gone', 'walled', 'challenged', 'throttled', 'silent', 'refused', 'private', 'metadata', 'no-name'].sort(),
    );
  }, 30_000);

  it('when many links share a host, then that host never sees two requests at once, and a failing link keeps its history', async () => {
    let inFlight = 0;
    let most = 0;
    const busy = await site((_req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setImmediate(() => {
        inFlight--;
        res.writeHead(200).end();
      });
    });
    for (let index = 0; index < 6; index++) await addTool(`page-${index}`, `${busy.origin}/p${index}`);
    expect(Object.values(await checkAll()).every(([status]) => status === 'ok')).toBe(true);
    expect(busy.requests).toHaveLength(6);
    expect(most).toBe(1);

    await harness.db('tools').where({ slug: 'page-0' }).update({ url: `${busy.origin}/moved` });
    // The URL changed: due at once, whatever the schedule said.
    expect((await createLinkRepository(harness.db).dueTargets(clock, 10)).map((target) => target.slug)).toEqual(['page-0']);
    const history = await createLinkRepository(harness.db).linkHistory('page-1');
    expect(history).toEqual([{ url: `${busy.origin}/p1`, checkedAt: clock, status: 'ok', reason: 'ok', httpStatus: 200, durationMs: expect.any(Number) }]);
  });
});

describe('admin CLI', () => {
  it('when links:check runs, then it prints each verdict and exits 1 on a broken link; links:broken and links:history report them', async () => {
    const fine = await site((_req, res) => res.writeHead(200).end());
    const missing = await site((_req, res) => res.writeHead(404).end());
    await addTool('fine', `${fine.origin}/`);
    await addTool('missing', `${missing.origin}/x`);
    const run = await cli('links:check');
    expect(run.status).toBe(1);
    expect(run.out).toEqual(expect.arrayContaining([`ok\tfine\tok\t200\t${fine.origin}/`, `broken\tmissing\thttp_404\t404\t${missing.origin}/x`]));
    expect(run.out.at(-1)).toBe('links: 1 ok, 1 broken, 0 unknown');
    expect(missing.requests).toEqual(['HEAD /x', 'GET /x', 'HEAD /x', 'GET /x']);
    // Nothing is due any more.
    expect((await cli('links:check')).out).toEqual(['links: 0 ok, 0 broken, 0 unknown']);

    const broken = await cli('links:broken');
    expect(broken.out.slice(1, -1).map((line) => line.split('\t').slice(0, 5))).toEqual([['broken', 'missing', 'http_404', '404', '1']]);
    expect(broken.out.at(-1)).toBe('1 broken, 0 unknown, 1 ok');
    expect((await cli('links:history', 'missing')).out.slice(1).map((line) => line.split('\t').slice(1, 4))).toEqual([['broken', 'http_404', '404']]);
    expect(await cli('links:check', 'nobody')).toMatchObject({ status: 1, err: ['error: no tool with slug "nobody"'] });
  });
});

describe('background jobs', () => {
  it('when two replicas want the same job, then one lease holder runs it at a time; a released or expired lease can be taken', async () => {
    const first = createJobLease(harness.db, { name: 'links', holder: 'a', ttlMs: 60_000 });
    const second = createJobLease(harness.db, { name: 'links', holder: 'b', ttlMs: 60_000 });
    expect(await first.acquire()).toBe(true);
    expect(await second.acquire()).toBe(false);
    expect(await first.acquire()).toBe(true);
    await first.release();
    expect(await second.acquire()).toBe(true);
    await harness.db('job_leases').update({ expires_at: new Date(Date.now() - 1000) });
    expect(await first.acquire()).toBe(true);
  });

  it('when a run happens, then due icons are fetched and due links checked; with another holder on the lease, nothing is done', async () => {
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#123456' } }).png().toBuffer();
    const target = await site((req, res) => {
      if (req.url === '/favicon.ico') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head></head><body>hi</body></html>');
    });
    await addTool('job', `${target.origin}/`);
    const options = { db: harness.db, logger: silentLogger, fetcher: { allowCidrs: TEST_ALLOW_CIDRS, timeoutMs: 3000 }, iconFetch: true, iconRefreshDays: 30, linkCheck: true, linkCheckIntervalHours: 24, firstRunAfterMs: 3_600_000 };

    await createJobLease(harness.db, { name: 'icons', holder: 'elsewhere', ttlMs: 60_000 }).acquire();
    await createJobLease(harness.db, { name: 'links', holder: 'elsewhere', ttlMs: 60_000 }).acquire();
    const blocked = startBackgroundJobs(options);
    await blocked.runOnce();
    await blocked.stop();
    expect(target.requests).toEqual([]);

    await harness.db.raw('TRUNCATE job_leases');
    const jobs = startBackgroundJobs(options);
    await jobs.runOnce();
    await jobs.stop();
    expect((await createIconRepository(harness.db).states())[0]).toMatchObject({ slug: 'job', failures: 0, sourceUrl: `${target.origin}/favicon.ico` });
    expect(await createLinkRepository(harness.db).countByStatus()).toEqual({ ok: 1, broken: 0, unknown: 0 });
    expect(await harness.db('job_leases').select('name')).toEqual([]);
  });
});
