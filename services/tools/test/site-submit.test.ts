import type express from 'express';
import request from 'supertest';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';

// The public 提交工具 form: what a visitor sees when a field is wrong, what is stored when it is right,
// and what is refused (honeypot, duplicates, the per-address limit) without storing anything.

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let address = 0;
/** Each test posts from its own address (loopback is a trusted proxy, so X-Forwarded-For names the client). */
let from: string;
const stored = async () => harness.db('tool_submissions').orderBy('id').select();
const post = (fields: Record<string, string>, path = '/submit') => request(app).post(path).set('X-Forwarded-For', from).type('form').send(fields);
const valid = (fields: Record<string, string> = {}) => ({ name: 'Excalidraw', url: 'https://excalidraw.com', category: 'image', description: '手绘风格的白板', contact: '', website: '', ...fields });

beforeAll(async () => {
  harness = await openHarness();
  app = harness.app({ config: { SITE_CACHE_TTL_MS: '60000' } });
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await harness.db.raw('TRUNCATE tool_submissions, tool_submission_limits RESTART IDENTITY');
  await importJson(harness.db, smallCatalog);
  address += 1;
  from = `203.0.113.${address}`;
});

describe('the submit page', () => {
  it('when a visitor opens /submit, then a cacheable plain form with the categories is shown, linked from every page', async () => {
    const res = await request(app).get('/submit');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.headers['content-security-policy']).toContain("form-action 'self'");
    expect(res.text).toContain('<form class="submit-form" method="post" action="/submit" novalidate>');
    for (const name of ['name', 'url', 'category', 'description', 'contact', 'website']) expect(res.text).toContain(`name="${name}"`);
    expect(res.text).toContain('<option value="image">图片处理</option>');
    expect((await request(app).get('/')).text).toContain('<a href="/submit">提交工具</a>');
    const english = await request(app).get('/en/submit');
    expect(english.text).toContain('action="/en/submit"');
    expect(english.text).toContain('Submit a tool');
    expect((await request(app).get('/en/')).text).toContain('<a href="/en/submit">Submit a tool</a>');
  });
});

describe('submitting', () => {
  it('when the fields are empty or wrong, then the form comes back (422, not cached) with a message per field, and nothing is stored', async () => {
    const empty = await post({ name: '', url: '', category: '', description: '', contact: '', website: '' });
    expect(empty.status).toBe(422);
    expect(empty.headers['cache-control']).toBe('no-store');
    expect(empty.text).toContain('表单有 3 处需要修改');
    expect(empty.text).toContain('<span class="form-field__error" id="submit-name-error">请填写工具名称。</span>');
    expect(empty.text).toContain('<span class="form-field__error" id="submit-url-error">请填写网址。</span>');
    expect(empty.text).toContain('<span class="form-field__error" id="submit-category-error">请从列表中选择一个分类。</span>');

    const wrong = await post(valid({ url: 'javascript:alert(1)', category: 'nope', description: 'x'.repeat(501) }));
    expect(wrong.status).toBe(422);
    expect(wrong.text).toContain('id="submit-url-error">网址格式不正确。</span>');
    expect(wrong.text).toContain('id="submit-category-error">请从列表中选择一个分类。</span>');
    expect(wrong.text).toContain('id="submit-description-error">简介太长了。</span>');
    // What was typed is kept, escaped.
    expect(wrong.text).toContain('value="javascript:alert(1)"');
    expect(wrong.text).toContain('value="Excalidraw"');

    const english = await post({ name: '', url: 'excalidraw.com', category: 'image' }, '/en/submit');
    expect(english.status).toBe(422);
    expect(english.text).toContain('id="submit-name-error">Please fill in tool name.</span>');
    expect(english.text).toContain('id="submit-url-error">URL is not valid.</span>');
    expect(await stored()).toEqual([]);
  });

  it('when the fields are right, then the submission is queued as pending with the address as a digest, and the visitor is redirected to a thank-you page', async () => {
    const res = await post(valid({ contact: 'me@example.com' }));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/submit/thanks');
    expect(res.headers['cache-control']).toBe('no-store');
    const rows = await stored();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'Excalidraw', url: 'https://excalidraw.com', category_slug: 'image', description: '手绘风格的白板', contact: 'me@example.com', status: 'pending', reviewed_by: null });
    expect(rows[0].submitter_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows[0])).not.toContain(from);
    const thanks = await request(app).get('/submit/thanks');
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('感谢提交');
    expect((await post(valid({ url: 'https://tldraw.com', name: 'tldraw' }), '/en/submit')).headers.location).toBe('/en/submit/thanks');
  });

  it('when the honeypot field is filled, then the bot is sent to the thank-you page and nothing is stored', async () => {
    const res = await post(valid({ website: 'http://spam.example' }));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/submit/thanks');
    expect(await stored()).toEqual([]);
  });

  it('when the URL is already a tool or already waiting for review, then it is refused with a clear message', async () => {
    // github.com is in the catalog; www., a trailing slash, http and case do not make it new.
    const tool = await post(valid({ name: 'GitHub', url: 'http://WWW.GitHub.com/' }));
    expect(tool.status).toBe(422);
    expect(tool.text).toContain('id="submit-url-error">这个网址已经收录或已有人提交，正在等待审核。</span>');
    expect(await stored()).toEqual([]);

    expect((await post(valid())).status).toBe(303);
    const again = await post(valid({ url: 'https://excalidraw.com/' }));
    expect(again.status).toBe(422);
    expect(again.text).toContain('这个网址已经收录或已有人提交');
    expect(await stored()).toHaveLength(1);
  });

  it('when an address has submitted 5 tools within the hour, then the 6th is refused with 429 and a page that says why, and is not stored; other addresses still may', async () => {
    // Refused forms (typos) do not count: the limit is on what would be stored.
    for (let i = 1; i <= 3; i += 1) expect((await post(valid({ url: 'not a url' }))).status).toBe(422);
    for (let i = 1; i <= 5; i += 1) expect((await post(valid({ name: `Tool ${i}`, url: `https://tool-${i}.example.com` }))).status).toBe(303);
    const refused = await post(valid({ name: 'Tool 6', url: 'https://tool-6.example.com' }));
    expect(refused.status).toBe(429);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect(refused.text).toContain('提交过于频繁');
    expect(refused.text).toContain('同一网络每小时最多提交 5 个工具');
    expect((await stored()).map((row) => row.name)).toEqual(['Tool 1', 'Tool 2', 'Tool 3', 'Tool 4', 'Tool 5']);
    // The limit is per address: another one still may.
    from = '203.0.113.250';
    expect((await post(valid({ name: 'Tool 6', url: 'https://tool-6.example.com' }))).status).toBe(303);
  });
});
