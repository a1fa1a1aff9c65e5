import request from 'supertest';
import { createKey, importJson, openHarness, smallCatalog, type Harness } from './support/harness';

let harness: Harness;

beforeAll(async () => {
  harness = await openHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await importJson(harness.db, smallCatalog);
});

describe('rate limit (in-memory limiter, one process)', () => {
  it('when a key with limit 5 makes 6 requests in the hour, then 5 pass with exact headers and the 6th is 429 with Retry-After', async () => {
    const clockStart = Date.now();
    const app = harness.app({ clock: () => new Date(clockStart) });
    const { apiKey } = await createKey(harness.db, { rateLimitPerHour: 5 });
    for (let i = 1; i <= 5; i += 1) {
      const res = await request(app).get('/api/index.php?action=tools').set('X-API-Key', apiKey);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5 - i));
      expect(res.headers['ratelimit-policy']).toBe('"default";q=5;w=3600');
      const header = new RegExp(`^"default";r=${5 - i};t=(\\d+)$`).exec(res.headers.ratelimit ?? '');
      expect(Number(header?.[1])).toBeGreaterThan(3590);
      expect(Number(header?.[1])).toBeLessThanOrEqual(3600);
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(Math.floor(clockStart / 1000) + 3590);
      expect(reset).toBeLessThanOrEqual(Math.ceil(clockStart / 1000) + 3600);
    }
    const rejected = await request(app).get('/api/index.php?action=tools').set('X-API-Key', apiKey);
    expect(rejected.status).toBe(429);
    expect(rejected.body).toEqual({ success: false, error: { code: 429, message: '请求过于频繁' } });
    expect(rejected.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(rejected.headers['retry-after'])).toBeGreaterThan(3590);
    expect(rejected.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    const metrics = await request(app).get('/metrics');
    expect(metrics.text).toContain('tools_rate_limit_rejections_total{subject="key"} 1');
  });

  it('when a request is rejected by the limit, then it has no effect (no visit counted)', async () => {
    const app = harness.app();
    const { apiKey } = await createKey(harness.db, { rateLimitPerHour: 1 });
    await request(app).get('/api/index.php?action=tool&slug=vscode').set('X-API-Key', apiKey).expect(200);
    await request(app).get('/api/index.php?action=tool&slug=vscode').set('X-API-Key', apiKey).expect(429);
    const row = await harness.db('tools').where({ slug: 'vscode' }).first('visits');
    expect(Number(row.visits)).toBe(1);
  });

  it('when a valid key makes bad requests (4xx), then they count too', async () => {
    const app = harness.app();
    const { apiKey } = await createKey(harness.db, { rateLimitPerHour: 2 });
    const bad = await request(app).get('/api/index.php?action=tools&page=0').set('X-API-Key', apiKey);
    expect(bad.status).toBe(400);
    expect(bad.headers['x-ratelimit-remaining']).toBe('1');
    const notFound = await request(app).get('/api/index.php?action=tool&slug=nope').set('X-API-Key', apiKey);
    expect(notFound.status).toBe(404);
    expect(notFound.headers['x-ratelimit-remaining']).toBe('0');
    expect((await request(app).get('/api/index.php?action=tools').set('X-API-Key', apiKey)).status).toBe(429);
  });

  it('when two keys are used, then each has its own window and limit (default 1000 unless overridden)', async () => {
    const app = harness.app({ config: { DEFAULT_RATE_LIMIT_PER_HOUR: '3' } });
    const small = await createKey(harness.db, { rateLimitPerHour: 1 });
    const defaulted = await createKey(harness.db);
    await request(app).get('/api/index.php?action=stats').set('X-API-Key', small.apiKey).expect(200);
    await request(app).get('/api/index.php?action=stats').set('X-API-Key', small.apiKey).expect(429);
    const other = await request(app).get('/api/index.php?action=stats').set('X-API-Key', defaulted.apiKey);
    expect(other.status).toBe(200);
    expect(other.headers['x-ratelimit-limit']).toBe('3');
    expect(other.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('when a key’s limit is raised during its window, then the new limit applies at once to the same count', async () => {
    const app = harness.app();
    const key = await createKey(harness.db, { rateLimitPerHour: 1 });
    await request(app).get('/api/index.php?action=stats').set('X-API-Key', key.apiKey).expect(200);
    await request(app).get('/api/index.php?action=stats').set('X-API-Key', key.apiKey).expect(429);
    await harness.db('api_keys').where({ id: key.id }).update({ rate_limit_per_hour: 10 });
    const res = await request(app).get('/api/index.php?action=stats').set('X-API-Key', key.apiKey);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('7');
  });

  it('when search and ads are called without a key, then the client IP is limited (X-Forwarded-For from a trusted proxy: loopback, by default)', async () => {
    const app = harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '2' } });
    const fromA = () => request(app).get('/api/index.php?action=search&q=code').set('X-Forwarded-For', '203.0.113.7');
    expect((await fromA()).headers['x-ratelimit-remaining']).toBe('1');
    const ads = await request(app).get('/api/index.php?action=miniapp&type=ads').set('X-Forwarded-For', '203.0.113.7');
    expect(ads.status).toBe(200);
    expect(ads.headers['x-ratelimit-remaining']).toBe('0');
    const limited = await fromA();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: { code: 429, message: '请求过于频繁' } });
    const fromB = await request(app).get('/api/index.php?action=search&q=code').set('X-Forwarded-For', '203.0.113.8');
    expect(fromB.status).toBe(200);
    // The client is the nearest address that is not a trusted proxy: a forged leftmost one does not buy a fresh window.
    const forged = await request(app).get('/api/index.php?action=search&q=code').set('X-Forwarded-For', '198.51.100.1, 203.0.113.7');
    expect(forged.status).toBe(429);
  });

  it('when the peer is not a configured proxy, then its X-Forwarded-For is ignored: 31 anonymous searches under 31 spoofed addresses are limited as one address', async () => {
    // The test's own connection comes from loopback, which TRUSTED_PROXIES here leaves out: a client reaching the replica directly.
    const app = harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '30', TRUSTED_PROXIES: '10.1.2.3' } });
    const search = (i: number) => request(app).get('/api/index.php?action=search&q=code').set('X-Forwarded-For', `198.51.100.${i}`);
    for (let i = 1; i <= 30; i += 1) {
      const res = await search(i);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(30 - i));
    }
    const limited = await search(31);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: { code: 429, message: '请求过于频繁' } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The website's pages share the address's budget: refused as well.
    expect((await request(app).get('/').set('X-Forwarded-For', '198.51.100.32')).status).toBe(429);
  });

  it('when search carries a valid key, then it counts against that key, not the IP', async () => {
    const app = harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '1' } });
    const { apiKey } = await createKey(harness.db, { rateLimitPerHour: 50 });
    for (let i = 0; i < 3; i += 1) {
      const res = await request(app).get('/api/index.php?action=search&q=code').set('X-API-Key', apiKey);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('50');
    }
  });
});
