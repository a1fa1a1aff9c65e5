import type express from 'express';
import type request from 'supertest';
import { addEditor, signedIn } from './support/editors';
import { createKey, importJson, openHarness, smallCatalog, type Harness } from './support/harness';

// An editor's writes in the web admin, and what the public site and API show right after: the caches
// are long here (a minute), so a change shows only because the write clears them.

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;
let apiKey: string;
const rows = async (table: string) => Number((await harness.db(table).count({ n: '*' }))[0]!.n);
const idOf = async (table: 'tools' | 'categories', slug: string) => Number((await harness.db(table).where({ slug }).first('id')).id);

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  app = harness.app({ config: { READ_CACHE_TTL_MS: '60000', STATS_CACHE_TTL_MS: '60000', SITE_CACHE_TTL_MS: '60000' } });
  ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await importJson(harness.db, smallCatalog);
  ({ apiKey } = await createKey(harness.db));
});

const api = (query: string) => agent.get(`/api/index.php?${query}`).set('X-API-Key', apiKey);
const toolForm = (fields: Record<string, string> = {}) => ({
  csrf,
  slug: 'excalidraw',
  name: 'Excalidraw',
  url: 'https://excalidraw.com',
  category: 'image',
  description: '手绘风格的白板',
  tags: '白板, 画图，协作',
  icon: '',
  sort_order: '3',
  ...fields,
});

describe('tools in the admin', () => {
  it('when an editor adds a tool, then it is stored as an import would store it and shows on the public site and in the API at once', async () => {
    const imageId = await idOf('categories', 'image');
    // Warm every cache that could hold the category without the new tool.
    expect((await agent.get('/category/image')).text).not.toContain('Excalidraw');
    expect((await api(`action=tools&category_id=${imageId}`)).body.data.data.map((tool: { slug: string }) => tool.slug)).toEqual(['tinypng', 'snipaste']);
    const search = await agent.get('/api/index.php?action=search&q=excalidraw');
    expect(search.body.data.total).toBe(0);

    const res = await agent.post('/admin/tools').type('form').send(toolForm({ is_featured: 'on' }));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/tools?done=saved');
    const stored = await harness.db('tools').where({ slug: 'excalidraw' }).first();
    expect(stored).toMatchObject({ name: 'Excalidraw', url: 'https://excalidraw.com', category_id: imageId, tags: ['白板', '画图', '协作'], is_featured: true, sort_order: 3 });

    expect((await agent.get('/category/image')).text).toContain('Excalidraw');
    expect((await agent.get('/tool/excalidraw')).status).toBe(200);
    expect((await api(`action=tools&category_id=${imageId}`)).body.data.data.map((tool: { slug: string }) => tool.slug)).toEqual(['tinypng', 'snipaste', 'excalidraw']);
    // The search document is written too: the tool is found by its pinyin-free name at once.
    expect((await agent.get('/api/index.php?action=search&q=excalidraw')).body.data.data[0].slug).toBe('excalidraw');
    const list = await agent.get('/admin/tools?done=saved');
    expect(list.text).toContain('已保存。');
    expect(list.text).toContain('Excalidraw');
  });

  it('when an editor edits a tool, renaming its slug, then the site and the API show the new fields at once and its visits are kept', async () => {
    const id = await idOf('tools', 'github');
    await harness.db('tools').where({ id }).update({ visits: 42 });
    expect((await agent.get('/tool/github')).text).toContain('代码托管平台');
    expect((await api('action=tool&slug=github')).body.data.name).toBe('GitHub');

    const form = await agent.get(`/admin/tools/${id}/edit`);
    expect(form.text).toContain('value="GitHub"');
    const res = await agent.post(`/admin/tools/${id}`).type('form').send(toolForm({ slug: 'github-com', name: 'GitHub.com', category: 'developer', description: '全球最大的代码托管平台' }));
    expect(res.status).toBe(303);

    expect((await agent.get('/tool/github')).status).toBe(404);
    const page = await agent.get('/tool/github-com');
    expect(page.status).toBe(200);
    expect(page.text).toContain('全球最大的代码托管平台');
    const detail = (await api('action=tool&slug=github-com')).body.data;
    expect(detail).toMatchObject({ id, name: 'GitHub.com', description: '全球最大的代码托管平台' });
    expect(detail.visits).toBe(44); // 42 kept, plus the two API look-ups (each counts a visit)
  });

  it('when an editor saves a tool or a category, then its English name and description are in the form, kept, and editable there', async () => {
    const id = await idOf('tools', 'github');
    const categoryId = await idOf('categories', 'developer');
    await harness.db('tools').where({ id }).update({ name_en: 'GitHub', description_en: 'Code hosting' });
    await harness.db('categories').where({ id: categoryId }).update({ name_en: 'Developer tools', description_en: 'For programmers' });

    const form = await agent.get(`/admin/tools/${id}/edit`);
    expect(form.text).toMatch(/<input[^>]*name="name_en"[^>]*lang="en"/);
    expect(form.text).toContain('value="GitHub"');
    expect(form.text).toContain('>Code hosting</textarea>');
    // Saved as the form sends it back: the English fields are not lost.
    const unchanged = { slug: 'github', name: 'GitHub', url: 'https://github.com', category: 'developer', name_en: 'GitHub', description_en: 'Code hosting' };
    expect((await agent.post(`/admin/tools/${id}`).type('form').send(toolForm(unchanged))).status).toBe(303);
    expect(await harness.db('tools').where({ id }).first('name_en', 'description_en')).toEqual({ name_en: 'GitHub', description_en: 'Code hosting' });
    // And edited there: the English page shows the new text at once.
    expect((await agent.post(`/admin/tools/${id}`).type('form').send(toolForm({ ...unchanged, description_en: 'Where code lives' }))).status).toBe(303);
    expect((await agent.get('/en/tool/github')).text).toContain('Where code lives');

    const categoryForm = await agent.get(`/admin/categories/${categoryId}/edit`);
    expect(categoryForm.text).toContain('value="Developer tools"');
    const category = { csrf, slug: 'developer', name: '开发工具', description: '', icon: '', sort_order: '0', name_en: 'Developer tools', description_en: 'For programmers' };
    expect((await agent.post(`/admin/categories/${categoryId}`).type('form').send(category)).status).toBe(303);
    expect(await harness.db('categories').where({ id: categoryId }).first('name_en', 'description_en')).toEqual({ name_en: 'Developer tools', description_en: 'For programmers' });
  });

  it('when an editor features and unfeatures a tool, then its page and the API follow at once', async () => {
    const id = await idOf('tools', 'github');
    const badge = '<span class="badge">精选推荐</span>';
    expect((await agent.get('/tool/github')).text).not.toContain(badge);
    expect((await api('action=tool&slug=github')).body.data.is_featured).toBe(false);
    expect((await agent.post(`/admin/tools/${id}/feature`).type('form').send({ csrf, featured: '1' })).headers.location).toBe('/admin/tools?done=featured');
    expect((await agent.get('/tool/github')).text).toContain(badge);
    expect((await api('action=tool&slug=github')).body.data.is_featured).toBe(true);
    await agent.post(`/admin/tools/${id}/feature`).type('form').send({ csrf, featured: '0' });
    expect((await agent.get('/tool/github')).text).not.toContain(badge);
    expect((await api('action=tool&slug=github')).body.data.is_featured).toBe(false);
  });

  it('when an editor deletes a tool after confirming, then it is gone from the site and the API', async () => {
    const id = await idOf('tools', 'snipaste');
    expect((await agent.get('/tool/snipaste')).status).toBe(200);
    const confirm = await agent.get(`/admin/tools/${id}/delete`);
    expect(confirm.text).toContain('删除「Snipaste」？');
    expect((await agent.post(`/admin/tools/${id}/delete`).type('form').send({ csrf })).headers.location).toBe('/admin/tools?done=deleted');
    expect(await harness.db('tools').where({ id }).first()).toBeUndefined();
    expect((await agent.get('/tool/snipaste')).status).toBe(404);
    expect((await api('action=tool&slug=snipaste')).status).toBe(404);
    expect((await agent.post(`/admin/tools/${id}/delete`).type('form').send({ csrf })).status).toBe(404);
  });

  it('when the form has errors, then it comes back with each field named and what was typed, and nothing is stored', async () => {
    const before = await rows('tools');
    const res = await agent.post('/admin/tools').type('form').send(toolForm({ name: '  ', url: 'javascript:alert(1)', sort_order: 'first' }));
    expect(res.status).toBe(422);
    expect(res.text).toContain('表单有 3 处需要修改');
    expect(res.text).toContain('<a href="#field-name">名称</a>: 名称不能为空');
    expect(res.text).toContain('<a href="#field-url">网址</a>: 网址不是有效的 http(s) 网址');
    expect(res.text).toContain('<a href="#field-sort_order">排序</a>: 排序必须是整数');
    expect(res.text).toMatch(/id="field-url" name="url"[^>]*aria-invalid="true"[^>]*value="javascript:alert\(1\)"/);
    expect(res.text).toContain('value="excalidraw"');
    expect(await rows('tools')).toBe(before);
  });

  it('when a new tool takes a slug another tool has, then it is refused on the slug field and the other tool is untouched', async () => {
    const res = await agent.post('/admin/tools').type('form').send(toolForm({ slug: 'vscode', name: 'Not VS Code' }));
    expect(res.status).toBe(422);
    expect(res.text).toContain('slug“vscode”已被另一个工具使用');
    expect((await harness.db('tools').where({ slug: 'vscode' }).first()).name).toBe('Visual Studio Code');
    const id = await idOf('tools', 'github');
    const rename = await agent.post(`/admin/tools/${id}`).type('form').send(toolForm({ slug: 'tinypng', name: 'GitHub' }));
    expect(rename.status).toBe(422);
    expect(rename.text).toContain('slug“tinypng”已被另一个工具使用');
    expect((await harness.db('tools').where({ id }).first()).slug).toBe('github');
  });

  it('when an unknown tool is asked for, then the admin answers 404', async () => {
    expect((await agent.get('/admin/tools/999999/edit')).status).toBe(404);
    expect((await agent.post('/admin/tools/999999').type('form').send(toolForm())).status).toBe(404);
    expect(await harness.db('tools').where({ slug: 'excalidraw' }).first()).toBeUndefined();
  });

  it('when a write comes without the session form token, then it is refused with 403 and nothing changes', async () => {
    const res = await agent.post('/admin/tools').type('form').send(toolForm({ csrf: 'forged' }));
    expect(res.status).toBe(403);
    expect(res.text).toContain('表单已过期或来源不明');
    const id = await idOf('tools', 'github');
    expect((await agent.post(`/admin/tools/${id}/delete`).type('form').send({})).status).toBe(403);
    expect(await harness.db('tools').where({ slug: 'excalidraw' }).first()).toBeUndefined();
    expect(await harness.db('tools').where({ id }).first()).toBeDefined();
  });
});

describe('categories in the admin', () => {
  it('when an editor adds a category, then it shows in the category list on the site and in the API at once', async () => {
    expect((await api('action=categories')).body.data).toHaveLength(3);
    const res = await agent.post('/admin/categories').type('form').send({ csrf, slug: 'writing', name: '写作', description: '写东西', icon: '✍️', sort_order: '0' });
    expect(res.status).toBe(303);
    expect((await api('action=categories')).body.data.map((category: { slug: string }) => category.slug)).toEqual(['writing', 'image', 'developer', 'empty']);
    expect((await agent.get('/category/writing')).status).toBe(200);
  });

  it('when an editor renames and re-sorts a category, then its tools are found by the new name and the order follows', async () => {
    const id = await idOf('categories', 'image');
    const res = await agent.post(`/admin/categories/${id}`).type('form').send({ csrf, slug: 'images', name: '图像工具', description: '', icon: '', sort_order: '9' });
    expect(res.status).toBe(303);
    expect((await api('action=categories')).body.data.map((category: { slug: string }) => category.slug)).toEqual(['developer', 'empty', 'images']);
    expect((await agent.get('/category/images')).text).toContain('图像工具');
    const found = (await agent.get(`/api/index.php?action=search&q=${encodeURIComponent('图像工具')}`)).body.data.data.map((tool: { slug: string }) => tool.slug);
    expect(found.sort()).toEqual(['snipaste', 'tinypng']);
  });

  it('when a category still holds tools, then deleting it is refused with a message naming how many, and nothing is deleted', async () => {
    const id = await idOf('categories', 'developer');
    const res = await agent.post(`/admin/categories/${id}/delete`).type('form').send({ csrf });
    expect(res.status).toBe(409);
    expect(res.text).toContain('分类「开发工具」下还有 2 个工具，不能删除');
    expect(await rows('categories')).toBe(3);
    expect(await rows('tools')).toBe(4);
  });

  it('when an empty category is deleted, then it is gone from the site and the API', async () => {
    expect((await agent.get('/category/empty')).status).toBe(200);
    const id = await idOf('categories', 'empty');
    expect((await agent.post(`/admin/categories/${id}/delete`).type('form').send({ csrf })).headers.location).toBe('/admin/categories?done=deleted');
    expect((await agent.get('/category/empty')).status).toBe(404);
    expect((await api('action=categories')).body.data).toHaveLength(2);
  });

  it('when a category form has errors or a taken slug, then it comes back with the fields named and nothing is stored', async () => {
    const res = await agent.post('/admin/categories').type('form').send({ csrf, slug: 'Bad Slug', name: '', sort_order: '1.5' });
    expect(res.status).toBe(422);
    expect(res.text).toContain('<a href="#field-slug">Slug（网址名）</a>: slug 只能由小写字母、数字、“.”、“_”和“-”组成');
    expect(res.text).toContain('<a href="#field-name">名称</a>: 名称不能为空');
    expect(res.text).toContain('<a href="#field-sort_order">排序</a>');
    const taken = await agent.post('/admin/categories').type('form').send({ csrf, slug: 'image', name: '另一个' });
    expect(taken.status).toBe(422);
    expect(taken.text).toContain('slug“image”已被另一个分类使用');
    expect(await rows('categories')).toBe(3);
    expect((await harness.db('categories').where({ slug: 'image' }).first()).name).toBe('图片处理');
  });
});
