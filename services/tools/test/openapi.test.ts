import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import path from 'node:path';
import type express from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { type CheckedResponse, loadOpenApi, type OpenApiValidator, openTestDatabase, rawExchange, type SpecTarget } from '@platform/kit/testing';
import { ADS_SETTING_KEY } from '../src/ads/ads-service';
import { createSettingsRepository } from '../src/ads/settings-repository';
import { createApp } from '../src/app';
import { Messages as messages } from '../src/errors/messages';
import { installClientErrorEnvelope } from '../src/http/client-error';
import { createRequestLimiter } from '../src/ratelimit/request-limiter';
import { createKey, importJson, openHarness, silentLogger, smallCatalog, testConfig, type Harness } from './support/harness';
import { toolsMigrations } from './support/service-migrations';

/**
 * openapi.yaml held to the service's real answers: every operation, success and each documented
 * error status, sent through the app and checked (status, Content-Type, headers, body) against the
 * schema the document declares. The service answers only the query form; each answer is checked
 * against the query-form operation and against the path-form operation nginx rewrites to it.
 */

const SPEC_FILE = path.join(__dirname, '..', 'openapi.yaml');
const QUERY_FORM: SpecTarget = { path: '/api/index.php', method: 'get' };
const PATH_FORM: Record<string, string> = {
  tools: '/api/v1/tools',
  tool: '/api/v1/tools/{slug}',
  search: '/api/v1/tools/search',
  categories: '/api/v1/categories',
  category: '/api/v1/categories/{id}',
  stats: '/api/v1/stats',
  miniapp: '/api/v1/miniapp/ads',
};
/** A request of each action that succeeds with the small catalog. */
const VALID_QUERY: Record<string, string> = {
  tools: 'action=tools&limit=500',
  tool: 'action=tool&slug=vscode',
  search: 'action=search&q=code',
  categories: 'action=categories',
  category: 'action=category&id=1',
  stats: 'action=stats',
  miniapp: 'action=miniapp&type=ads',
};

let harness: Harness;
let spec: OpenApiValidator;
let app: express.Express;
let apiKey: string;

beforeAll(async () => {
  [harness, spec] = await Promise.all([openHarness(), loadOpenApi(SPEC_FILE)]);
});
afterAll(async () => harness?.close());
beforeEach(async () => {
  await harness.reset();
  expect((await importJson(harness.db, smallCatalog)).tools.rejected).toEqual([]);
  apiKey = (await createKey(harness.db)).apiKey;
  app = harness.app();
});

const api = (query: string, on = app) => request(on).get(`/api/index.php?${query}`);

/** The answer of `action`, checked against the query form and against the path form nginx rewrites to it. */
function expectAction(res: CheckedResponse, action: string) {
  spec.expectResponseMatchesSpec(res, { ...QUERY_FORM, action });
  spec.expectResponseMatchesSpec(res, { path: PATH_FORM[action]!, method: 'get' });
}

function expectError(res: request.Response, status: number, message: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.body).toEqual({ success: false, error: { code: status, message } });
}

/** The app on a real socket with main.ts's parser-refusal envelope; `options` are Node's server timeouts. */
async function listening(on: express.Express, options: http.ServerOptions = {}): Promise<http.Server> {
  const server = http.createServer(options, on);
  installClientErrorEnvelope(server, silentLogger);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('the document', () => {
  it('when openapi.yaml is loaded, then swagger-parser accepts it as OpenAPI 3.1 and no path key carries a query string', () => {
    expect(spec.document.openapi).toBe('3.1.0');
    expect(Object.keys(spec.document.paths).filter((key) => key.includes('?'))).toEqual([]);
  });

  it('when openapi.yaml is read, then every fixed error message is documented', () => {
    const text = fs.readFileSync(SPEC_FILE, 'utf8');
    const fixed = Object.values(messages).flatMap((message) => (typeof message === 'string' ? [message] : []));
    expect(fixed.filter((message) => !text.includes(message))).toEqual([]);
  });

  it.each([
    ['', '缺少 action'],
    ['action=nope', '未知的 action'],
    ['action=tools&page=1&page=2', 'page 只能出现一次'],
    ['action=tools&page=0', 'page 必须是正整数'],
    ['action=tools&category_id=1234567890', 'category_id 超出范围'],
    ['action=tools&limit=x', 'limit 必须是正整数'],
    ['action=tool&slug=', 'slug 不能为空'],
    ['action=search&q=', 'q 不能为空'],
    [`action=search&q=${'a'.repeat(101)}`, 'q 长度不能超过 100 个字符'],
    ['action=search&q=a%00b', 'q 包含非法字符'],
    ['action=category&id=', 'id 不能为空'],
    ['action=miniapp&type=', 'type 不能为空'],
    ['action=miniapp&type=banner', 'type 只支持 ads'],
  ])('when the query is ?%s, then the 400 says 参数错误: %s, word for word as openapi.yaml documents it', async (query, what) => {
    const res = await api(query).set('X-API-Key', apiKey);
    expectError(res, 400, `参数错误: ${what}`);
    spec.expectResponseMatchesSpec(res, QUERY_FORM);
    // The spec may write a parameter's name as <param> where the message has the name itself.
    const documented = fs.readFileSync(SPEC_FILE, 'utf8');
    const wordsAfterName = what.replace(/^(page|category_id|limit|id|slug|q|type) /, '');
    expect(documented.includes(what) || documented.includes(`<param> ${wordsAfterName}`)).toBe(true);
  });

  it('when the query form is read, then x-action-schemas and the path forms cover exactly its action enum', () => {
    const operation = spec.operation(QUERY_FORM.path, QUERY_FORM.method);
    const actionEnum = operation.parameters?.find((parameter) => parameter.name === 'action')?.schema?.enum as string[];
    expect(Object.keys(operation['x-action-schemas'] ?? {}).sort()).toEqual([...actionEnum].sort());
    expect(Object.keys(PATH_FORM).sort()).toEqual([...actionEnum].sort());
  });
});

describe('success of every action', () => {
  it.each(Object.keys(VALID_QUERY))('when %s succeeds, then its answer and rate-limit headers match both forms', async (action) => {
    const res = await api(VALID_QUERY[action]!).set('X-API-Key', apiKey);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expectAction(res, action);
  });

  it('when search and miniapp are called without a key, then the anonymous answers match too', async () => {
    for (const action of ['search', 'miniapp']) {
      const res = await api(VALID_QUERY[action]!);
      expect(res.status).toBe(200);
      expectAction(res, action);
    }
  });

  it('when an operator has set the ads, then the configured AdsConfig matches', async () => {
    const config = {
      banner: { unit_id: 'adunit-banner', enabled: true, position: 'top' },
      interstitial: { unit_id: 'adunit-inter', enabled: true, interval: 90 },
      rewarded: { unit_id: 'adunit-reward', enabled: true },
      native: { unit_id: '', enabled: false },
      unlock: { enabled: true, features: ['导出高清', 'batch'], duration_minutes: 30 },
    };
    await createSettingsRepository(harness.db).put(ADS_SETTING_KEY, config);
    const res = await api(VALID_QUERY.miniapp!);
    expect(res.body).toEqual({ success: true, data: config });
    expectAction(res, 'miniapp');
  });
});

describe('documented errors', () => {
  it.each([
    ['tools', 'action=tools&page=0', '参数错误: page 必须是正整数'],
    ['tool', 'action=tool&slug=%20', '参数错误: slug 不能为空'],
    ['search', 'action=search', '参数错误: q 不能为空'],
    ['category', 'action=category&id=abc', '参数错误: id 必须是正整数'],
    ['miniapp', 'action=miniapp&type=banner', '参数错误: type 只支持 ads'],
  ])('when %s gets a bad parameter, then 400 matches both forms', async (action, query, message) => {
    const res = await api(query).set('X-API-Key', apiKey);
    expectError(res, 400, message);
    expectAction(res, action);
  });

  it('when action is missing or unknown, then 400 matches the query form', async () => {
    for (const [query, message] of [
      ['', '参数错误: 缺少 action'],
      ['action=nope', '参数错误: 未知的 action'],
    ]) {
      const res = await api(query!).set('X-API-Key', apiKey);
      expectError(res, 400, message!);
      spec.expectResponseMatchesSpec(res, QUERY_FORM);
    }
  });

  it.each(['tools', 'tool', 'categories', 'category', 'stats'])('when %s has no key or a disabled one, then 401 and 403 match both forms', async (action) => {
    const disabled = await createKey(harness.db, { enabled: false });
    const missing = await api(VALID_QUERY[action]!);
    expectError(missing, 401, '无效的API密钥');
    expectAction(missing, action);
    const refused = await api(VALID_QUERY[action]!).set('X-API-Key', disabled.apiKey);
    expectError(refused, 403, 'API密钥已禁用');
    expectAction(refused, action);
  });

  it.each([
    ['tool', 'action=tool&slug=no-such-tool'],
    ['category', 'action=category&id=999'],
  ])('when %s names nothing, then 404 matches both forms', async (action, query) => {
    const res = await api(query).set('X-API-Key', apiKey);
    expectError(res, 404, '资源不存在');
    expectAction(res, action);
  });

  it.each(Object.keys(VALID_QUERY))('when %s is called past its key limit, then 429 with Retry-After and the rate-limit headers matches both forms', async (action) => {
    const limited = await createKey(harness.db, { rateLimitPerHour: 1 });
    expect((await api(VALID_QUERY[action]!).set('X-API-Key', limited.apiKey)).status).toBe(200);
    const res = await api(VALID_QUERY[action]!).set('X-API-Key', limited.apiKey);
    expectError(res, 429, '请求过于频繁');
    expectAction(res, action);
  });

  it('when the database is gone, then every action answers the generic 500 and /readyz the documented 503', async () => {
    const database = await openTestDatabase('tools', toolsMigrations);
    const { db } = database;
    const broken = createApp({ db, limiter: createRequestLimiter({ keyPrefix: 'x', logger: silentLogger }), logger: silentLogger, config: testConfig() });
    await db.destroy();
    for (const action of Object.keys(VALID_QUERY)) {
      const res = await api(VALID_QUERY[action]!, broken).set('X-API-Key', 'tk_any');
      expectError(res, 500, '服务器内部错误');
      expectAction(res, action);
    }
    const ready = await request(broken).get('/readyz');
    expect([ready.status, ready.body]).toEqual([503, { status: 'unavailable', database: 'down' }]);
    spec.expectResponseMatchesSpec(ready, { path: '/readyz', method: 'get' });
    await database.drop();
  });
});

describe('other methods', () => {
  it('when a preflight OPTIONS arrives, then 204 with the documented CORS headers and no body', async () => {
    const res = await request(app).options('/api/index.php?action=tools').set('Origin', 'https://example.org').set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(204);
    spec.expectResponseMatchesSpec(res, { path: '/api/index.php', method: 'options' });
  });

  it('when POST, PUT, DELETE or PATCH arrives, then 405 with Allow matches the documented refusal', async () => {
    for (const method of ['post', 'put', 'delete', 'patch'] as const) {
      const res = await request(app)[method]('/api/index.php?action=tools').set('X-API-Key', apiKey);
      expectError(res, 405, '不支持的请求方法');
      spec.expectResponseMatchesSpec(res, { path: '/api/index.php', method: 'post' });
    }
  });
});

describe('probes', () => {
  it('when /healthz, /readyz and /metrics are asked, then each answer matches its schema', async () => {
    const health = await request(app).get('/healthz');
    expect(health.body).toEqual({ status: 'ok' });
    spec.expectResponseMatchesSpec(health, { path: '/healthz', method: 'get' });
    const ready = await request(app).get('/readyz');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ok', database: 'ok', redis: 'not_configured', limiter: 'memory' }]);
    spec.expectResponseMatchesSpec(ready, { path: '/readyz', method: 'get' });
    const metrics = await request(app).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('tools_http_requests_total');
    spec.expectResponseMatchesSpec(metrics, { path: '/metrics', method: 'get' });
  });

  it('when the limiter has a Redis client that is not connected, then /readyz says degraded as documented', async () => {
    // A real client that never reached its server: the limiter serves on its insurance limiter.
    const unreachable = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false });
    try {
      const degraded = harness.app({ limiter: createRequestLimiter({ keyPrefix: 'x', redis: unreachable, logger: silentLogger }) });
      const ready = await request(degraded).get('/readyz');
      expect([ready.status, ready.body]).toEqual([200, { status: 'degraded', database: 'ok', redis: 'down', limiter: 'memory' }]);
      spec.expectResponseMatchesSpec(ready, { path: '/readyz', method: 'get' });
    } finally {
      unreachable.disconnect();
    }
  });
});

describe("requests Node's HTTP parser refuses", () => {
  let server: http.Server;
  beforeEach(async () => {
    server = await listening(app);
  });
  afterEach(async () => closeServer(server));

  const refusalTargets: Array<[string, string, SpecTarget]> = [
    ...Object.entries(VALID_QUERY).map(([action, query]): [string, string, SpecTarget] => ['GET', `/api/index.php?${query}`, { path: PATH_FORM[action]!, method: 'get' }]),
    ['GET', '/api/index.php?action=tools', QUERY_FORM],
    ['OPTIONS', '/api/index.php', { path: '/api/index.php', method: 'options' }],
    ['POST', '/api/index.php', { path: '/api/index.php', method: 'post' }],
    ['GET', '/healthz', { path: '/healthz', method: 'get' }],
    ['GET', '/readyz', { path: '/readyz', method: 'get' }],
    ['GET', '/metrics', { path: '/metrics', method: 'get' }],
  ];

  it.each(refusalTargets)('when %s %s has headers over 16 KB, then 431 matches its 4XX', async (method, url, target) => {
    const res = await rawExchange(server, `${method} ${url} HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'f'.repeat(20 * 1024)}\r\n\r\n`);
    expect([res.status, JSON.parse(res.text!)]).toEqual([431, { success: false, error: { code: 431, message: '参数错误: 请求头过大' } }]);
    spec.expectResponseMatchesSpec(res, target);
  });

  it('when the URL has raw non-ASCII bytes, then 400 matches the documented refusal', async () => {
    const res = await rawExchange(server, 'GET /api/index.php?action=search&q=截图 HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect([res.status, JSON.parse(res.text!)]).toEqual([400, { success: false, error: { code: 400, message: '参数错误: URL 含有未编码的字符（中文等须先做 URL 编码）' } }]);
    spec.expectResponseMatchesSpec(res, QUERY_FORM);
    spec.expectResponseMatchesSpec(res, { path: PATH_FORM.search!, method: 'get' });
  });

  it('when a request is not received in time, then 408 请求超时 matches the 4XX', async () => {
    const impatient = await listening(app, { headersTimeout: 100, requestTimeout: 200, connectionsCheckingInterval: 20 });
    try {
      // The headers never end: the server's own timeout answers.
      const res = await rawExchange(impatient, 'GET /api/index.php?action=stats HTTP/1.1\r\nHost: localhost\r\n');
      expect([res.status, JSON.parse(res.text!)]).toEqual([408, { success: false, error: { code: 408, message: '请求超时' } }]);
      spec.expectResponseMatchesSpec(res, QUERY_FORM);
    } finally {
      await closeServer(impatient);
    }
  });
});

it('when every test above has run, then every documented operation, status and action was checked against a real answer', () => {
  expect(spec.unchecked()).toEqual([]);
});
