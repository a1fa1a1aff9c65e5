import request from 'supertest';
import { openTestDatabase } from '@platform/kit/testing';
import pino from 'pino';
import type express from 'express';
import { createKey, importJson, openHarness, smallCatalog, type Harness } from './support/harness';
import { createSettingsRepository } from '../src/ads/settings-repository';
import { ADS_SETTING_KEY } from '../src/ads/ads-service';
import { createApp } from '../src/app';
import { createRequestLimiter } from '../src/ratelimit/request-limiter';
import { silentLogger, testConfig } from './support/harness';
import { toolsMigrations } from './support/service-migrations';

let harness: Harness;
let app: express.Express;
let apiKey: string;

beforeAll(async () => {
  harness = await openHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  const report = await importJson(harness.db, smallCatalog);
  expect(report.tools.rejected).toEqual([]);
  apiKey = (await createKey(harness.db)).apiKey;
  app = harness.app();
});

const api = (query: string) => request(app).get(`/api/index.php?${query}`);
const authed = (query: string) => api(query).set('X-API-Key', apiKey);

function expectError(res: request.Response, status: number, message: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code: status, message } });
}

async function visitsOf(slug: string): Promise<number> {
  const row = await harness.db('tools').where({ slug }).first('visits');
  return Number(row.visits);
}

describe('tools list', () => {
  it('when listing with defaults, then it returns all tools with the Tool fields and pagination', async () => {
    const res = await authed('action=tools');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 20, total: 4, total_pages: 1 });
    expect(res.body.data.data.map((t: { slug: string }) => t.slug)).toEqual(['vscode', 'github', 'tinypng', 'snipaste']);
    const vscode = res.body.data.data[0];
    expect(Object.keys(vscode).sort()).toEqual(
      ['id', 'name', 'slug', 'description', 'url', 'icon', 'category_id', 'category_name', 'tags', 'visits', 'is_featured', 'created_at', 'updated_at'].sort(),
    );
    expect(vscode).toMatchObject({ name: 'Visual Studio Code', category_name: '开发工具', tags: ['编辑器', 'IDE'], visits: 0, is_featured: true });
    expect(new Date(vscode.created_at).toISOString()).toBe(vscode.created_at);
  });

  it('when paging with limit=3, then page 2 holds the rest and a page past the end is empty with the true total', async () => {
    const second = await authed('action=tools&page=2&limit=3');
    expect(second.body.data.pagination).toEqual({ page: 2, limit: 3, total: 4, total_pages: 2 });
    expect(second.body.data.data.map((t: { slug: string }) => t.slug)).toEqual(['snipaste']);
    const past = await authed('action=tools&page=9&limit=3');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual({ data: [], pagination: { page: 9, limit: 3, total: 4, total_pages: 2 } });
  });

  it.each(['5000', '100000000000000000000'])('when limit is over 100 (%s), then it is clamped to 100 and the pagination says so', async (limit) => {
    const res = await authed(`action=tools&limit=${limit}`);
    expect(res.status).toBe(200);
    expect(res.body.data.pagination.limit).toBe(100);
  });

  it('when filtering by category_id, then only that category’s tools are listed', async () => {
    const image = await harness.db('categories').where({ slug: 'image' }).first('id');
    const res = await authed(`action=tools&category_id=${image.id}`);
    expect(res.body.data.pagination.total).toBe(2);
    expect(res.body.data.data.map((t: { slug: string }) => t.slug)).toEqual(['tinypng', 'snipaste']);
    expectError(await authed('action=tools&category_id=99999999999'), 400, '参数错误: category_id 超出范围');
    const unknown = await authed('action=tools&category_id=999999999');
    expect(unknown.body.data).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, total_pages: 0 } });
  });

  it.each([
    ['page=0', 'page 必须是正整数'],
    ['page=-1', 'page 必须是正整数'],
    ['page=1.5', 'page 必须是正整数'],
    ['page=abc', 'page 必须是正整数'],
    ['page=', 'page 必须是正整数'],
    ['limit=0', 'limit 必须是正整数'],
    ['limit=2e1', 'limit 必须是正整数'],
    ['limit=%20', 'limit 必须是正整数'],
    ['page=1&page=2', 'page 只能出现一次'],
    ['page=12345678901', 'page 超出范围'],
    ['category_id=x', 'category_id 必须是正整数'],
  ])('when the list gets %s, then it is 400 with a clear message', async (query, what) => {
    expectError(await authed(`action=tools&${query}`), 400, `参数错误: ${what}`);
  });
});

describe('tool detail', () => {
  it('when reading a tool by slug, then it returns the tool with its category and counts one visit', async () => {
    const res = await authed('action=tool&slug=tinypng');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ slug: 'tinypng', name: 'TinyPNG', visits: 1, category_name: '图片处理' });
    expect(res.body.data.category).toEqual({ id: res.body.data.category_id, name: '图片处理', slug: 'image' });
    await authed('action=tool&slug=tinypng');
    expect(await visitsOf('tinypng')).toBe(2);
  });

  it('when reading a tool by numeric id, then it is found and its visit counted', async () => {
    const { id } = await harness.db('tools').where({ slug: 'github' }).first('id');
    const res = await authed(`action=tool&slug=${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.slug).toBe('github');
    expect(await visitsOf('github')).toBe(1);
  });

  it('when the detail is requested with HEAD, then it answers like GET without a body and counts no visit', async () => {
    const head = await request(app).head('/api/index.php?action=tool&slug=tinypng').set('X-API-Key', apiKey);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['x-ratelimit-remaining']).toBe('999');
    expect(head.text).toBeUndefined();
    const { id } = await harness.db('tools').where({ slug: 'tinypng' }).first('id');
    expect((await request(app).head(`/api/index.php?action=tool&slug=${id}`).set('X-API-Key', apiKey)).status).toBe(200);
    expect((await request(app).head('/api/index.php?action=tool&slug=nope').set('X-API-Key', apiKey)).status).toBe(404);
    expect(await visitsOf('tinypng')).toBe(0);
    const get = await authed('action=tool&slug=tinypng');
    expect(get.body.data.visits).toBe(1);
    expect(await visitsOf('tinypng')).toBe(1);
  });

  it('when 50 detail reads run concurrently, then exactly 50 visits are counted', async () => {
    await Promise.all(Array.from({ length: 50 }, () => authed('action=tool&slug=vscode').expect(200)));
    expect(await visitsOf('vscode')).toBe(50);
  });

  it.each(['nope', '999999', '99999999999999999999', 'a%25b', "o'brien", '😀', 'x'.repeat(300), 'a%00b'])(
    'when the slug is %s, then it is 404 and no visit is counted',
    async (slug) => {
      expectError(await authed(`action=tool&slug=${slug}`), 404, '资源不存在');
      const total = await harness.db('tools').sum({ visits: 'visits' }).first();
      expect(Number(total?.visits)).toBe(0);
    },
  );

  it('when slug is missing or blank, then it is 400', async () => {
    expectError(await authed('action=tool'), 400, '参数错误: slug 不能为空');
    expectError(await authed('action=tool&slug=%20'), 400, '参数错误: slug 不能为空');
  });
});

describe('categories', () => {
  it('when listing categories, then they come sorted by sort_order with tool counts', async () => {
    const res = await authed('action=categories');
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { slug: string; tool_count: number }) => [c.slug, c.tool_count])).toEqual([
      ['image', 2],
      ['developer', 2],
      ['empty', 0],
    ]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(['description', 'icon', 'id', 'name', 'parent_id', 'slug', 'sort_order', 'tool_count']);
  });

  it('when reading a category, then it returns the category and its tools, paginated', async () => {
    const { id } = await harness.db('categories').where({ slug: 'developer' }).first('id');
    const res = await authed(`action=category&id=${id}&limit=1&page=2`);
    expect(res.status).toBe(200);
    expect(res.body.data.category).toMatchObject({ id, slug: 'developer', name: '开发工具', tool_count: 2 });
    expect(res.body.data.data.map((t: { slug: string }) => t.slug)).toEqual(['github']);
    expect(res.body.data.pagination).toEqual({ page: 2, limit: 1, total: 2, total_pages: 2 });
  });

  it('when the category id is unknown, then 404; when it is not a positive integer, then 400', async () => {
    expectError(await authed('action=category&id=424242'), 404, '资源不存在');
    expectError(await authed('action=category&id=99999999999'), 400, '参数错误: id 超出范围');
    expectError(await authed('action=category&id=abc'), 400, '参数错误: id 必须是正整数');
    expectError(await authed('action=category&id=0'), 400, '参数错误: id 必须是正整数');
    expectError(await authed('action=category'), 400, '参数错误: id 不能为空');
  });
});

describe('stats', () => {
  it('when visits were counted, then stats report totals and the most visited tools first', async () => {
    for (let i = 0; i < 3; i += 1) await authed('action=tool&slug=snipaste').expect(200);
    await authed('action=tool&slug=github').expect(200);
    const res = await authed('action=stats');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total_tools: 4, total_categories: 3, total_visits: 4 });
    expect(res.body.data.popular_tools.map((t: { slug: string; visits: number }) => [t.slug, t.visits])).toEqual([
      ['snipaste', 3],
      ['github', 1],
      ['vscode', 0],
      ['tinypng', 0],
    ]);
  });

  it('when there are more than 10 tools, then popular_tools holds the top 10', async () => {
    const tools = Array.from({ length: 12 }, (_, i) => ({ slug: `t${i}`, name: `Tool ${i}`, url: `https://t${i}.example.com`, category: 'empty' }));
    await importJson(harness.db, { tools });
    await harness.db('tools').where({ slug: 't11' }).update({ visits: 1_000_000 });
    const res = await authed('action=stats');
    expect(res.body.data.total_tools).toBe(16);
    expect(res.body.data.total_visits).toBe(1_000_000);
    expect(res.body.data.popular_tools).toHaveLength(10);
    expect(res.body.data.popular_tools[0].slug).toBe('t11');
  });

  it('when the stats cache has a TTL, then a second read within it is served from the cache', async () => {
    let clock = 1_000;
    const cached = harness.app({ config: { STATS_CACHE_TTL_MS: '5000' }, clock: () => new Date(clock) });
    const first = await request(cached).get('/api/index.php?action=stats').set('X-API-Key', apiKey);
    await harness.db('tools').where({ slug: 'github' }).update({ visits: 7 });
    const second = await request(cached).get('/api/index.php?action=stats').set('X-API-Key', apiKey);
    expect(second.body.data.total_visits).toBe(first.body.data.total_visits);
    clock += 5_001;
    const third = await request(cached).get('/api/index.php?action=stats').set('X-API-Key', apiKey);
    expect(third.body.data.total_visits).toBe(7);
  });

  it('when the cache has a TTL, then list totals come from it while the rows are always fresh', async () => {
    let clock = 1_000;
    const cached = harness.app({ config: { STATS_CACHE_TTL_MS: '5000' }, clock: () => new Date(clock) });
    const list = async () => (await request(cached).get('/api/index.php?action=tools&limit=100').set('X-API-Key', apiKey)).body.data;
    const before = await list();
    const category = await harness.db('categories').first('id');
    await harness.db('tools').insert({ slug: 'fresh-tool', name: 'Fresh', url: 'https://example.org', category_id: category.id });
    const within = await list();
    expect(within.pagination.total).toBe(before.pagination.total);
    expect(within.data.map((t: { slug: string }) => t.slug)).toContain('fresh-tool');
    clock += 5_001;
    expect((await list()).pagination.total).toBe(before.pagination.total + 1);
  });
});

describe('search ranking', () => {
  it('when several fields match, then the order is exact name or tag (the name first), name prefix, name substring, description; ties by visits', async () => {
    const tool = (slug: string, name: string, extra: { tags?: string[]; description?: string } = {}) => ({
      slug,
      name,
      url: `https://${slug}.example.com`,
      category: 'empty',
      tags: extra.tags ?? [],
      description: extra.description ?? '',
    });
    await importJson(harness.db, {
      tools: [
        tool('in-description', 'Alpha', { description: 'works with Zap files' }),
        tool('in-tag', 'Beta', { tags: ['zap'] }),
        tool('in-name-low', 'MegaZap Lite'),
        tool('in-name-high', 'SuperZap'),
        tool('prefix', 'Zapier'),
        tool('exact', 'ZAP'),
      ],
    });
    await harness.db('tools').where({ slug: 'in-name-high' }).update({ visits: 10 });
    await harness.db('tools').where({ slug: 'in-name-low' }).update({ visits: 3 });
    const res = await api('action=search&q=zap');
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(6);
    expect(res.body.data.data.map((t: { slug: string }) => t.slug)).toEqual(['exact', 'in-tag', 'prefix', 'in-name-high', 'in-name-low', 'in-description']);
  });
});

describe('mini-program ads', () => {
  it('when no config was set, then everything is disabled, and no key is needed', async () => {
    const res = await api('action=miniapp&type=ads');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        banner: { unit_id: '', enabled: false, position: 'bottom' },
        interstitial: { unit_id: '', enabled: false, interval: 60 },
        rewarded: { unit_id: '', enabled: false },
        native: { unit_id: '', enabled: false },
        unlock: { enabled: false, features: [], duration_minutes: 60 },
      },
    });
  });

  it('when an operator stored a config, then it is served', async () => {
    const config = {
      banner: { unit_id: 'adunit-b', enabled: true, position: 'top' },
      interstitial: { unit_id: 'adunit-i', enabled: true, interval: 120 },
      rewarded: { unit_id: 'adunit-r', enabled: false },
      native: { unit_id: 'adunit-n', enabled: true },
      unlock: { enabled: true, features: ['export'], duration_minutes: 30 },
    };
    await createSettingsRepository(harness.db).put(ADS_SETTING_KEY, config);
    const res = await api('action=miniapp&type=ads');
    expect(res.body.data).toEqual(config);
  });

  it('when type is not ads, then 400', async () => {
    expectError(await api('action=miniapp&type=banner'), 400, '参数错误: type 只支持 ads');
    expectError(await api('action=miniapp'), 400, '参数错误: type 不能为空');
  });
});

describe('authentication', () => {
  it.each(['tools', 'tool&slug=vscode', 'categories', 'category&id=1', 'stats'])(
    'when action=%s has no key, then 401 无效的API密钥 and no visit is counted',
    async (action) => {
      const res = await api(`action=${action}`);
      expectError(res, 401, '无效的API密钥');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect(await visitsOf('vscode')).toBe(0);
    },
  );

  it('when the key is unknown, very long, odd or repeated, then 401', async () => {
    expectError(await api('action=tools').set('X-API-Key', 'tk_unknown'), 401, '无效的API密钥');
    expectError(await api('action=tools').set('X-API-Key', 'k'.repeat(10 * 1024)), 401, '无效的API密钥');
    expectError(await api(`action=tools&api_key=${'%'.repeat(3)}25'"😀`), 401, '无效的API密钥');
    expectError(await api('action=tools&api_key=a%00b'), 401, '无效的API密钥');
    expectError(await api(`action=tools&api_key=${encodeURIComponent(apiKey)}&api_key=${encodeURIComponent(apiKey)}`), 401, '无效的API密钥');
  });

  it('when the key comes as the api_key query parameter, then it is accepted', async () => {
    const res = await api(`action=tools&api_key=${encodeURIComponent(apiKey)}`);
    expect(res.status).toBe(200);
  });

  it('when both header and query carry a key, then the header wins', async () => {
    expectError(await api(`action=tools&api_key=${encodeURIComponent(apiKey)}`).set('X-API-Key', 'wrong'), 401, '无效的API密钥');
    const res = await api('action=tools&api_key=wrong').set('X-API-Key', apiKey);
    expect(res.status).toBe(200);
  });

  it('when the key is disabled, then 403 API密钥已禁用, and re-enabling it restores access', async () => {
    const disabled = await createKey(harness.db, { enabled: false });
    expectError(await api('action=tools').set('X-API-Key', disabled.apiKey), 403, 'API密钥已禁用');
    await harness.db('api_keys').where({ id: disabled.id }).update({ enabled: true });
    expect((await api('action=tools').set('X-API-Key', disabled.apiKey)).status).toBe(200);
  });

  it('when search or ads get a disabled or unknown key, then they answer as for an anonymous caller', async () => {
    const disabled = await createKey(harness.db, { enabled: false });
    const res = await api('action=search&q=png').set('X-API-Key', disabled.apiKey);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('1000');
    expect((await api('action=miniapp&type=ads').set('X-API-Key', 'bogus')).status).toBe(200);
  });
});

describe('query form and protocol', () => {
  it('when action is missing or unknown, then 400', async () => {
    expectError(await api(''), 400, '参数错误: 缺少 action');
    expectError(await authed('action=delete'), 400, '参数错误: 未知的 action');
    expectError(await authed('action=constructor'), 400, '参数错误: 未知的 action');
    expectError(await authed('action=tools&action=stats'), 400, '参数错误: action 只能出现一次');
  });

  it('when the query string is malformed or hostile, then the answer is a 4xx envelope, never a 500', async () => {
    const search = await api('action=search&q=%');
    expect(search.status).toBe(200);
    expect(search.body.data.total).toBe(0);
    expect((await api('action=search&q=%E4%B8')).status).toBe(200);
    expectError(await api(`action=tools&api_key=${'k'.repeat(10 * 1024)}`), 401, '无效的API密钥');
    expectError(await api('action=%00'), 400, '参数错误: 未知的 action');
    expectError(await api(`action=${'x'.repeat(10 * 1024)}`), 400, '参数错误: 未知的 action');
    expectError(await authed('action=tool&slug=%F0%9F%98%80%00'), 404, '资源不存在');
    expectError(await authed(`action=category&id=${encodeURIComponent("1' OR '1'='1")}`), 400, '参数错误: id 必须是正整数');
  });

  it.each(['post', 'put', 'delete', 'patch'] as const)('when the method is %s, then 405 with Allow and nothing changes', async (method) => {
    const res = await request(app)[method]('/api/index.php?action=tool&slug=vscode').set('X-API-Key', apiKey).send({ a: 1 });
    expectError(res, 405, '不支持的请求方法');
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(await visitsOf('vscode')).toBe(0);
  });

  it('when a browser sends a preflight, then CORS allows any origin and the API key header', async () => {
    const res = await request(app).options('/api/index.php?action=tools').set('Origin', 'https://example.org').set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toContain('X-API-Key');
    const get = await authed('action=tools');
    expect(get.headers['access-control-allow-origin']).toBe('*');
  });

  it('when an API path is unknown, then 404 in the envelope (other paths are the website\'s, see site.test.ts)', async () => {
    expectError(await request(app).get('/api/v1/tools'), 404, '资源不存在');
    expectError(await request(app).get('/api/nope'), 404, '资源不存在');
    expectError(await request(app).post('/api/v1/tools'), 404, '资源不存在');
  });

  it('when a request carries X-Request-Id, then the response echoes it; otherwise one is generated', async () => {
    const given = await authed('action=tools').set('X-Request-Id', 'req-123');
    expect(given.headers['x-request-id']).toBe('req-123');
    const generated = await authed('action=tools');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('when a request is served, then its log line is JSON carrying the request id', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const logged = harness.app({ logger });
    await request(logged).get('/api/index.php?action=search&q=png').set('X-Request-Id', 'trace-42').set('X-API-Key', apiKey).expect(200);
    const records = lines.map((line) => JSON.parse(line));
    expect(records.find((record) => record.req?.id === 'trace-42')).toMatchObject({
      msg: 'request completed',
      req: { method: 'GET', url: '/api/index.php?action=search&q=png' },
      res: { statusCode: 200 },
    });
    expect(lines.join('\n')).not.toContain(apiKey);
  });

  it.each([
    ['api_key', 200],
    ['api%5Fkey', 200], // the query parser decodes names: this one authenticates
    ['API_KEY', 401],
    ['api_key[]', 401],
    ['api_key[0]', 401],
    ['api_key%5B%5D', 401],
    ['api-key', 401],
  ])('when the key is given as ?%s=, then the answer is %i and the log line holds no key', async (name, status) => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const res = await request(harness.app({ logger })).get(`/api/index.php?action=tools&${name}=${apiKey}&page=1`).set('X-Request-Id', 'trace-secret');
    expect(res.status).toBe(status);
    const record = lines.map((line) => JSON.parse(line)).find((entry) => entry.req?.id === 'trace-secret');
    expect(record.req.url).toBe(`/api/index.php?action=tools&${name}=[redacted]&page=1`);
    expect(lines.join('\n')).not.toContain(apiKey);
  });

  it('when a query holds parameters the service does not name, then the log shows their names with [redacted] values, on the API and the website', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const logged = harness.app({ logger });
    const api = await request(logged).get('/api/index.php?action=search&q=png&page=1&password=hunter2-in-url&Q=case-spelled&api%5Fkey=encoded-key').set('X-Request-Id', 'trace-listed');
    expect(api.status).toBe(200);
    const site = await request(logged).get('/search?q=png&session=session-in-url').set('X-Request-Id', 'trace-site');
    expect(site.status).toBe(200);
    const records = lines.map((line) => JSON.parse(line));
    expect(records.find((record) => record.req?.id === 'trace-listed').req.url).toBe(
      '/api/index.php?action=search&q=png&page=1&password=[redacted]&Q=[redacted]&api%5Fkey=[redacted]',
    );
    expect(records.find((record) => record.req?.id === 'trace-site').req.url).toBe('/search?q=png&session=[redacted]');
    for (const secret of ['hunter2-in-url', 'case-spelled', 'encoded-key', 'session-in-url']) expect(lines.join('\n')).not.toContain(secret);
  });

  it('when probes are called, then healthz, readyz and metrics answer', async () => {
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', database: 'ok', redis: 'not_configured', limiter: 'memory' });
    await authed('action=tools');
    await api('action=tools');
    const metrics = await request(app).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/tools_http_requests_total\{route="tools",method="GET",status="200"\} 1/);
    expect(metrics.text).toMatch(/tools_http_requests_total\{route="tools",method="GET",status="401"\} 1/);
    expect(metrics.text).toContain('tools_http_request_duration_seconds_bucket');
  });
});

describe('when the database is gone', () => {
  it('then API calls get the generic 500 envelope (no internals) and /readyz says 503', async () => {
    const database = await openTestDatabase('tools', toolsMigrations);
    const { db } = database;
    const broken = createApp({ db, limiter: createRequestLimiter({ keyPrefix: 'x', logger: silentLogger }), logger: silentLogger, config: testConfig() });
    await db.destroy();
    const res = await request(broken).get('/api/index.php?action=tools').set('X-API-Key', 'tk_any');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: { code: 500, message: '服务器内部错误' } });
    const ready = await request(broken).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', database: 'down' });
    expect((await request(broken).get('/healthz')).status).toBe(200);
    await database.drop();
  });
});
