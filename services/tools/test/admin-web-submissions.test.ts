import type express from 'express';
import request from 'supertest';
import { addEditor, signedIn } from './support/editors';
import { createKey, importJson, openHarness, smallCatalog, type Harness } from './support/harness';

// The editors' review queue of visitors' submissions: approve (the tool form, prefilled) makes a tool the
// public site and the API show at once; reject closes it; every write needs the session and its token.

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;
let apiKey: string;
let aliceId: number;
let address = 0;

const submit = (fields: Record<string, string>) => {
  address += 1;
  return request(app).post('/submit').set('X-Forwarded-For', `198.51.100.${address}`).type('form').send({ category: 'image', description: '', contact: '', website: '', ...fields });
};
const submission = async (name: string) => harness.db('tool_submissions').where({ name }).first();

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  aliceId = Number((await harness.db('editors').where({ name: 'alice' }).first('id')).id);
  app = harness.app({ config: { READ_CACHE_TTL_MS: '60000', STATS_CACHE_TTL_MS: '60000', SITE_CACHE_TTL_MS: '60000' } });
  ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await harness.db.raw('TRUNCATE tool_submissions, tool_submission_limits RESTART IDENTITY');
  await importJson(harness.db, smallCatalog);
  ({ apiKey } = await createKey(harness.db));
  expect((await submit({ name: 'Excalidraw', url: 'https://www.excalidraw.com/', description: '手绘风格的白板', contact: 'fan@example.com' })).status).toBe(303);
  expect((await submit({ name: 'Spam Casino', url: 'https://casino.example', category: 'developer' })).status).toBe(303);
});

describe('the review queue', () => {
  it('when an editor opens the admin, then the nav shows how many submissions wait, and the queue lists them with approve and reject', async () => {
    const tools = await agent.get('/admin/tools');
    expect(tools.text).toContain('<a href="/admin/submissions">投稿<span class="badge">2</span><span class="visually-hidden">（2 条待审）</span></a>');
    const queue = await agent.get('/admin/submissions');
    expect(queue.status).toBe(200);
    expect(queue.text).toContain('Excalidraw');
    expect(queue.text).toContain('fan@example.com');
    expect(queue.text).toContain('Spam Casino');
    expect(queue.text).toContain('href="/admin/submissions/1/approve"');
    expect(queue.text).toContain('action="/admin/submissions/2/reject"');
  });

  it('when an editor approves a submission, picking slug and tags, then the tool is created as the tools form would, shown on the site and in the API, and the submission is closed', async () => {
    const imageCategory = await agent.get(`/api/index.php?action=tools&category_id=2`).set('X-API-Key', apiKey);
    expect(imageCategory.body.data.data.map((tool: { slug: string }) => tool.slug)).toEqual(['tinypng', 'snipaste']);
    expect((await agent.get('/category/image')).text).not.toContain('Excalidraw');

    const form = await agent.get('/admin/submissions/1/approve');
    expect(form.status).toBe(200);
    expect(form.text).toContain('action="/admin/submissions/1/approve"');
    expect(form.text).toContain('value="Excalidraw"');
    expect(form.text).toContain('value="excalidraw-com"');
    expect(form.text).toContain('value="https://www.excalidraw.com/"');
    expect(form.text).toContain('<option value="image" selected>');

    // A wrong slug: the form again, nothing created, still pending.
    const refused = await agent.post('/admin/submissions/1/approve').type('form').send({ csrf, name: 'Excalidraw', slug: 'Bad Slug', url: 'https://www.excalidraw.com/', category: 'image', description: '手绘风格的白板', tags: '', icon: '', sort_order: '0' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('slug 只能由小写字母');
    expect(await harness.db('tools').where({ name: 'Excalidraw' }).first()).toBeUndefined();
    expect((await submission('Excalidraw')).status).toBe('pending');

    const res = await agent.post('/admin/submissions/1/approve').type('form').send({ csrf, name: 'Excalidraw', slug: 'excalidraw', url: 'https://www.excalidraw.com/', category: 'image', description: '手绘风格的白板', tags: '白板, 画图', icon: '', sort_order: '0' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/submissions?done=approved');
    const tool = await harness.db('tools').where({ slug: 'excalidraw' }).first();
    expect(tool).toMatchObject({ name: 'Excalidraw', url: 'https://www.excalidraw.com/', tags: ['白板', '画图'] });
    expect(await submission('Excalidraw')).toMatchObject({ status: 'approved', reviewed_by: aliceId, tool_id: tool.id });
    expect((await submission('Excalidraw')).reviewed_at).not.toBeNull();

    expect((await agent.get('/category/image')).text).toContain('Excalidraw');
    expect((await agent.get('/tool/excalidraw')).status).toBe(200);
    const api = await agent.get('/api/index.php?action=tool&slug=excalidraw').set('X-API-Key', apiKey);
    expect(api.body.data).toMatchObject({ slug: 'excalidraw', name: 'Excalidraw', category_name: '图片处理' });
    const queue = await agent.get('/admin/submissions?done=approved');
    expect(queue.text).toContain('已通过，工具已收录。');
    expect(queue.text).not.toContain('href="/admin/submissions/1/approve"');
    expect(queue.text).toContain('投稿<span class="badge">1</span>');
    // Now a tool: the same URL cannot be submitted again.
    expect((await submit({ name: 'Excalidraw again', url: 'https://excalidraw.com' })).status).toBe(422);
  });

  it('when an editor rejects a submission with a reason, then it leaves the queue, its reason and reviewer are kept, and it cannot be approved afterwards', async () => {
    const res = await agent.post('/admin/submissions/2/reject').type('form').send({ csrf, reason: '广告' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/submissions?done=rejected');
    expect(await submission('Spam Casino')).toMatchObject({ status: 'rejected', reject_reason: '广告', reviewed_by: aliceId, tool_id: null });
    const queue = await agent.get('/admin/submissions');
    expect(queue.text).not.toContain('Spam Casino');
    const late = await agent.get('/admin/submissions/2/approve');
    expect(late.status).toBe(409);
    expect(late.text).toContain('这条投稿已被审核过了。');
    expect((await agent.post('/admin/submissions/2/reject').type('form').send({ csrf })).status).toBe(409);
    expect((await agent.get('/admin/submissions/99/approve')).status).toBe(404);
    expect(await harness.db('tools').where({ name: 'Spam Casino' }).first()).toBeUndefined();
  });

  it('when a POST lacks the session form token, or no one is signed in, then nothing is reviewed', async () => {
    const forged = await agent.post('/admin/submissions/1/reject').type('form').send({ reason: 'x' });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('表单已过期或来源不明');
    const forgedApprove = await agent.post('/admin/submissions/1/approve').type('form').send({ csrf: 'x'.repeat(43), name: 'Excalidraw', slug: 'excalidraw', url: 'https://excalidraw.com', category: 'image' });
    expect(forgedApprove.status).toBe(403);

    const anonymous = await request(app).get('/admin/submissions');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe('/admin/?next=%2Fadmin%2Fsubmissions');
    const anonymousPost = await request(app).post('/admin/submissions/1/reject').type('form').send({ csrf, reason: 'x' });
    expect(anonymousPost.status).toBe(303);
    expect(anonymousPost.headers.location).toBe('/admin/');

    expect(Number((await harness.db('tool_submissions').where({ status: 'pending' }).count({ n: '*' }))[0]!.n)).toBe(2);
    expect(await harness.db('tools').where({ name: 'Excalidraw' }).first()).toBeUndefined();
  });
});
