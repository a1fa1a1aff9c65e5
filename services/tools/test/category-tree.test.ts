import type express from 'express';
import type request from 'supertest';
import { englishText } from '../src/catalog/catalog-messages';
import { addEditor, adminCommand, signedIn } from './support/editors';
import { createKey, importJson, openHarness, smallCatalog, type Harness } from './support/harness';

// Two levels of categories: the import and the admin form set a category's parent (and refuse a third
// level), the API names it (parent_id), and the site shows subcategories in the home page's index and on
// their parent's page, with their tools. Caches are long here (a minute): changes show because writes clear them.

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;
let apiKey: string;
const idOf = async (slug: string) => Number((await harness.db('categories').where({ slug }).first('id')).id);
const parentOf = async (slug: string) => (await harness.db('categories').where({ slug }).first('parent_id')).parent_id as number | null;

/** smallCatalog plus two subcategories of developer, one with a tool. */
const treeCatalog = {
  categories: [
    // A subcategory may come before its parent in the file.
    { slug: 'frontend', name: '前端', parent: 'developer', sort_order: 1 },
    ...smallCatalog.categories,
    { slug: 'database', name: '数据库', parent: 'developer', sort_order: 2 },
  ],
  tools: [...smallCatalog.tools, { slug: 'vite', name: 'Vite', description: '前端构建工具', url: 'https://vite.dev', category: 'frontend', tags: ['构建'] }],
};

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
  ({ apiKey } = await createKey(harness.db));
});

describe('two levels of categories', () => {
  it('when an import names parents, then subcategories are stored under them, and a third level or an unknown parent is refused per row', async () => {
    const report = await importJson(harness.db, {
      categories: [
        ...treeCatalog.categories,
        { slug: 'react', name: 'React', parent: 'frontend' },
        { slug: 'orphan', name: '孤儿', parent: 'nowhere' },
        { slug: 'self', name: '自己', parent: 'self' },
      ],
      tools: treeCatalog.tools,
    });
    expect(report.categories.created).toBe(5);
    expect(report.categories.rejected).toEqual([
      { row: 6, slug: 'react', reason: { key: 'parentIsSubcategory', params: { parent: 'frontend' } } },
      { row: 7, slug: 'orphan', reason: { key: 'unknownParent', params: { parent: 'nowhere' } } },
      { row: 8, slug: 'self', reason: { key: 'ownParent', params: {} } },
    ]);
    expect(await parentOf('frontend')).toBe(await idOf('developer'));
    expect(await parentOf('developer')).toBeNull();

    // A category with subcategories cannot become one; the same file again changes nothing.
    const again = await importJson(harness.db, { categories: [{ slug: 'developer', name: '开发工具', parent: 'image' }], tools: [] });
    expect(englishText(again.categories.rejected[0]!.reason)).toBe('"developer" has 2 subcategories, so it cannot become a subcategory: categories have two levels only');
    expect(await parentOf('developer')).toBeNull();
    expect((await importJson(harness.db, treeCatalog)).categories).toMatchObject({ created: 0, updated: 0, unchanged: 5 });
  });

  it('when categories are listed by the API, then each carries parent_id (null at the top)', async () => {
    await importJson(harness.db, treeCatalog);
    const res = await agent.get('/api/index.php?action=categories').set('X-API-Key', apiKey);
    const bySlug = Object.fromEntries(res.body.data.map((category: { slug: string; parent_id: number | null }) => [category.slug, category.parent_id]));
    expect(bySlug).toEqual({ developer: null, image: null, empty: null, frontend: await idOf('developer'), database: await idOf('developer') });
    const detail = await agent.get(`/api/index.php?action=category&id=${await idOf('frontend')}`).set('X-API-Key', apiKey);
    expect(detail.body.data.category.parent_id).toBe(await idOf('developer'));
    // The CLI's list names each parent by slug.
    expect((await adminCommand(harness.db, ['category:list'])).out).toContain('\tfrontend\t前端\t1\t1\tdeveloper');
  });

  it('when the site is visited, then the home index nests subcategories and a parent page lists them and their tools', async () => {
    await importJson(harness.db, treeCatalog);
    const home = await agent.get('/');
    expect(home.text).toMatch(/<span class="side-index__name">开发工具<\/span><span class="side-index__count">3<\/span><\/a><ul class="side-index__sublist"><li><a class="side-index__link" href="#c-frontend">/);
    // database has no tool: its index entry opens its page.
    expect(home.text).toContain('<a class="side-index__link" href="/category/database">');

    const parent = await agent.get('/category/developer');
    expect(parent.status).toBe(200);
    expect(parent.text).toContain('<h2 class="section__title" id="subcategories-heading">子分类</h2>');
    expect(parent.text).toContain('href="/category/frontend"');
    expect(parent.text).toContain('data-slug="vite"');
    expect(parent.text).toContain('<p class="page-head__meta">3 个工具</p>');
    // By name: GitHub, Visual Studio Code, Vite (the subcategory's tool among the parent's own).
    const byName = await agent.get('/category/developer?sort=name');
    expect([...byName.text.matchAll(/<li class="tool-card" data-slug="([^"]+)"/g)].map((match) => match[1])).toEqual(['github', 'vscode', 'vite']);

    const child = await agent.get('/category/frontend');
    expect(child.text).toMatch(/<li><a href="\/category\/developer">开发工具<\/a><\/li><li><span aria-current="page">前端<\/span><\/li>/);
    expect(child.text).not.toContain('data-slug="vscode"');
  });

  it('when an editor sets a parent in the category form, then the site follows at once; a third level is refused at the field and nothing changes', async () => {
    await importJson(harness.db, treeCatalog);
    expect((await agent.get('/category/developer')).text).not.toContain('href="/category/image"><span class="category-card__icon"');

    const form = await agent.get(`/admin/categories/${await idOf('image')}/edit`);
    expect(form.text).toContain('<select id="field-parent" name="parent"');
    expect(form.text).toContain('<option value="developer">开发工具</option>');
    expect(form.text).not.toContain('<option value="frontend">'); // only top-level categories can be parents

    const moved = await agent.post(`/admin/categories/${await idOf('image')}`).type('form').send({ csrf, slug: 'image', name: '图片处理', parent: 'developer', sort_order: '1' });
    expect(moved.status).toBe(303);
    expect(await parentOf('image')).toBe(await idOf('developer'));
    const parentPage = await agent.get('/category/developer');
    expect(parentPage.text).toContain('data-slug="tinypng"');
    expect((await agent.get('/admin/categories')).text).toMatch(/<td class="subcategory">.*图片处理/);

    const third = await agent.post('/admin/categories').type('form').send({ csrf, slug: 'react', name: 'React', parent: 'frontend' });
    expect(third.status).toBe(422);
    expect(third.text).toContain('<a href="#field-parent">上级分类</a>: “frontend”本身是子分类：分类只有两级');
    expect(third.text).toMatch(/<select id="field-parent" name="parent" aria-describedby="field-parent-hint field-parent-error" aria-invalid="true">/);
    expect(await harness.db('categories').where({ slug: 'react' }).first()).toBeUndefined();

    const up = await agent.post(`/admin/categories/${await idOf('developer')}`).type('form').send({ csrf, slug: 'developer', name: '开发工具', parent: 'empty' });
    expect(up.status).toBe(422);
    expect(up.text).toContain('有 3 个子分类，不能成为子分类');
    expect(await parentOf('developer')).toBeNull();
  });

  it('when two editors put two categories under each other at the same moment, then one save wins and the other is refused: no chain, no cycle', async () => {
    await importJson(harness.db, { categories: [{ slug: 'alpha', name: 'Alpha' }, { slug: 'beta', name: 'Beta' }], tools: [] });
    const [alpha, beta] = [await idOf('alpha'), await idOf('beta')];
    const answers = await Promise.all([
      agent.post(`/admin/categories/${alpha}`).type('form').send({ csrf, slug: 'alpha', name: 'Alpha', parent: 'beta' }),
      agent.post(`/admin/categories/${beta}`).type('form').send({ csrf, slug: 'beta', name: 'Beta', parent: 'alpha' }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 422]);
    const parents = [await parentOf('alpha'), await parentOf('beta')];
    expect(parents.filter((parent) => parent !== null)).toHaveLength(1);
  });

  it('when a category still has subcategories, then deleting it is refused with their count', async () => {
    await importJson(harness.db, { categories: [{ slug: 'parent', name: '父' }, { slug: 'child', name: '子', parent: 'parent' }], tools: [] });
    const res = await agent.post(`/admin/categories/${await idOf('parent')}/delete`).type('form').send({ csrf });
    expect(res.status).toBe(409);
    expect(res.text).toContain('分类「父」下还有 1 个子分类，不能删除');
    expect(await harness.db('categories').where({ slug: 'parent' }).first()).toBeDefined();
  });
});
