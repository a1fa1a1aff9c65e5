import type express from 'express';
import type request from 'supertest';
import { memoryKeyVersion } from '../src/auth/key-version';
import { addEditor, signedIn } from './support/editors';
import { openHarness, type Harness } from './support/harness';

// API keys in the web admin: created (shown once), listed with their limits and use, disabled and enabled.

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  // Keys cached per process, as in production with Redis: a change must reach the cache at once.
  app = harness.app({ keyVersion: memoryKeyVersion() });
  ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
});

const categories = (apiKey: string) => agent.get('/api/index.php?action=categories').set('X-API-Key', apiKey);

it('when an editor creates a key, then it is shown once, only its digest is kept, and it opens the API with its limit', async () => {
  const res = await agent.post('/admin/keys').type('form').send({ csrf, name: 'partner', limit: '50' });
  expect(res.status).toBe(201);
  const apiKey = /<code class="secret">(tk_[A-Za-z0-9_-]{43})<\/code>/.exec(res.text)?.[1] ?? '';
  expect(apiKey).not.toBe('');
  expect(res.text).toContain('已创建密钥「partner」');
  const [row] = await harness.db('api_keys').select('*');
  expect(JSON.stringify(row)).not.toContain(apiKey);
  const answer = await categories(apiKey);
  expect(answer.status).toBe(200);
  expect(answer.headers['x-ratelimit-limit']).toBe('50');
  const list = await agent.get('/admin/keys');
  expect(list.text).not.toContain(apiKey);
  expect(list.text).toMatch(/partner<br><span class="slug">tk_[A-Za-z0-9_-]{5}…<\/span><\/td>\s*<td>启用<\/td>\s*<td class="num">50<\/td>\s*<td class="num">1<\/td>/);
});

it('when a key is made without a limit, then the list shows the default; a taken name or a bad limit is refused by field', async () => {
  expect((await agent.post('/admin/keys').type('form').send({ csrf, name: 'app', limit: '' })).status).toBe(201);
  expect((await agent.get('/admin/keys')).text).toContain('<td class="num">1000（默认）</td>');
  const taken = await agent.post('/admin/keys').type('form').send({ csrf, name: 'app', limit: '0' });
  expect(taken.status).toBe(422);
  expect(taken.text).toContain('<a href="#field-limit">每小时限额</a>: 限额必须是正整数，或留空');
  const again = await agent.post('/admin/keys').type('form').send({ csrf, name: 'app' });
  expect(again.status).toBe(422);
  expect(again.text).toContain('<a href="#field-name">名称</a>: 已有名为「app」的密钥');
  expect(Number((await harness.db('api_keys').count({ n: '*' }))[0]!.n)).toBe(1);
});

it('when an editor disables a key, then the API refuses it at once though it was cached; enabled, it works again', async () => {
  const created = await agent.post('/admin/keys').type('form').send({ csrf, name: 'partner' });
  const apiKey = /<code class="secret">(tk_[^<]+)<\/code>/.exec(created.text)![1]!;
  expect((await categories(apiKey)).status).toBe(200);
  const id = Number((await harness.db('api_keys').first('id')).id);
  const disabled = await agent.post(`/admin/keys/${id}/disable`).type('form').send({ csrf });
  expect(disabled.headers.location).toBe('/admin/keys?done=disabled');
  const refused = await categories(apiKey);
  expect(refused.status).toBe(403);
  expect(refused.body).toEqual({ success: false, error: { code: 403, message: 'API密钥已禁用' } });
  await agent.post(`/admin/keys/${id}/enable`).type('form').send({ csrf });
  expect((await categories(apiKey)).status).toBe(200);
  expect((await agent.post(`/admin/keys/${id}/disable`).type('form').send({})).status).toBe(403);
  expect((await agent.post('/admin/keys/999999/disable').type('form').send({ csrf })).status).toBe(404);
});

it('when an editor changes the hourly limit of a key, then the API applies it at once though the key was cached; a bad limit is refused with its message and changes nothing', async () => {
  const created = await agent.post('/admin/keys').type('form').send({ csrf, name: 'partner', limit: '50' });
  const apiKey = /<code class="secret">(tk_[^<]+)<\/code>/.exec(created.text)![1]!;
  expect((await categories(apiKey)).headers['x-ratelimit-limit']).toBe('50');
  const id = Number((await harness.db('api_keys').first('id')).id);
  expect((await agent.get('/admin/keys')).text).toContain(`<a class="btn btn--quiet btn--small" href="/admin/keys/${id}/limit">改限额<span class="visually-hidden">：partner</span></a>`);
  const form = await agent.get(`/admin/keys/${id}/limit`);
  expect(form.status).toBe(200);
  expect(form.text).toContain('<h1>密钥「partner」的每小时限额</h1>');
  expect(form.text).toMatch(/<input type="number" id="field-limit" name="limit"[^>]* value="50">/);

  for (const bad of ['0', '-3', '2.5', 'many', '1000000000']) {
    const refused = await agent.post(`/admin/keys/${id}/limit`).type('form').send({ csrf, limit: bad });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('<a href="#field-limit">每小时限额</a>: 限额必须是正整数，或留空');
    expect(refused.text).toContain('<span class="field__error" id="field-limit-error">限额必须是正整数，或留空</span>');
    expect(refused.text).toContain(`value="${bad}"`);
  }
  expect((await harness.db('api_keys').first('rate_limit_per_hour')).rate_limit_per_hour).toBe(50);
  expect((await categories(apiKey)).headers['x-ratelimit-limit']).toBe('50');

  const saved = await agent.post(`/admin/keys/${id}/limit`).type('form').send({ csrf, limit: '7' });
  expect(saved.status).toBe(303);
  expect(saved.headers.location).toBe(`/admin/keys?done=limit&key=${id}`);
  expect((await agent.get(saved.headers.location!)).text).toContain('<p class="notice" role="status">密钥「partner」的每小时限额已改为 7。</p>');
  expect((await categories(apiKey)).headers['x-ratelimit-limit']).toBe('7');

  // Empty: back to the default.
  await agent.post(`/admin/keys/${id}/limit`).type('form').send({ csrf, limit: '' });
  expect((await harness.db('api_keys').first('rate_limit_per_hour')).rate_limit_per_hour).toBeNull();
  expect((await categories(apiKey)).headers['x-ratelimit-limit']).toBe('1000');
  expect((await agent.get(`/admin/keys?done=limit&key=${id}`)).text).toContain('密钥「partner」的每小时限额已改为 1000（默认）。');

  expect((await agent.post(`/admin/keys/${id}/limit`).type('form').send({ limit: '9' })).status).toBe(403);
  expect((await agent.get('/admin/keys/999999/limit')).status).toBe(404);
  expect((await agent.post('/admin/keys/999999/limit').type('form').send({ csrf, limit: '9' })).status).toBe(404);
});
