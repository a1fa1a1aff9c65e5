import type express from 'express';
import type request from 'supertest';
import { addEditor, signedIn } from './support/editors';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';

// Tag pages: /tag/<name> and /en/tag/<name> list the tools carrying a tag with a category page's cards,
// sorts and pages; a tag no tool carries is the site's 404 page; an editor's tag change shows at once.

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;
const slugsIn = (page: string) => [...page.matchAll(/<li class="tool-card" data-slug="([^"]+)"/g)].map((match) => match[1]);

const tagged = {
  categories: smallCatalog.categories,
  tools: [
    ...smallCatalog.tools,
    { slug: 'squoosh', name: 'Squoosh', description: '谷歌的图片压缩', url: 'https://squoosh.app', category: 'image', tags: ['压缩'] },
    { slug: '7zip', name: '7-Zip', description: '文件压缩', url: 'https://7-zip.org', category: 'developer', tags: ['压缩', 'c/c++'] },
  ],
};

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  app = harness.app({ config: { SITE_CACHE_TTL_MS: '60000' } });
  ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await importJson(harness.db, tagged);
  await harness.db('tools').where({ slug: 'squoosh' }).update({ visits: 9 });
  await harness.db('tools').where({ slug: 'tinypng' }).update({ visits: 5 });
});

describe('tag pages', () => {
  it('when a tag page is asked, then it lists the tools carrying the tag as cards with their category, most visited first', async () => {
    const res = await agent.get(`/tag/${encodeURIComponent('压缩')}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.text).toContain('<title>#压缩 相关工具 - 工具导航</title>');
    expect(res.text).toContain('<h1 class="page-head__title">#压缩</h1>');
    expect(res.text).toContain('<p class="page-head__meta">标签“压缩”下的 3 个工具</p>');
    expect(slugsIn(res.text)).toEqual(['squoosh', 'tinypng', '7zip']);
    expect(res.text).toContain('<span class="tool-card__meta">图片处理</span>');
    expect(res.text).toContain(`href="/tag/${encodeURIComponent('压缩')}?sort=latest"`);
  });

  it('when a tag page is sorted by name or newest, then the order follows and the page is not indexed', async () => {
    const byName = await agent.get(`/tag/${encodeURIComponent('压缩')}?sort=name`);
    expect(slugsIn(byName.text)).toEqual(['7zip', 'squoosh', 'tinypng']);
    expect(byName.text).toContain('<meta name="robots" content="noindex, follow">');
    const latest = await agent.get(`/tag/${encodeURIComponent('压缩')}?sort=latest`);
    expect(slugsIn(latest.text)).toEqual(['7zip', 'squoosh', 'tinypng']);
    expect((await agent.get(`/tag/${encodeURIComponent('压缩')}?sort=random`)).status).toBe(400);
  });

  it('when a tag holds a slash, then its link and its page work; the English form answers too', async () => {
    const tool = await agent.get('/tool/7zip');
    expect(tool.text).toContain('<a class="tag" href="/tag/c%2Fc%2B%2B" aria-label="标签“c/c++”的全部工具">#c/c++</a>');
    const page = await agent.get('/tag/c%2Fc%2B%2B');
    expect(page.status).toBe(200);
    expect(slugsIn(page.text)).toEqual(['7zip']);
    const english = await agent.get('/en/tag/c%2Fc%2B%2B');
    expect(english.status).toBe(200);
    expect(english.text).toContain('<title>Tools tagged #c/c++ - ');
    expect(english.text).not.toContain('hreflang="en"');
  });

  it('when no tool carries the tag, or the page is past the end, then it is the site 404 page', async () => {
    for (const path of ['/tag/nothing', '/en/tag/nothing', `/tag/${encodeURIComponent('压缩')}?page=2`, '/tag/%ff']) {
      const res = await agent.get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toContain('text/html');
    }
  });

  it('when an editor adds a tag to a tool in the admin, then the tag page lists it at once (caches a minute long)', async () => {
    expect(slugsIn((await agent.get('/tag/git')).text)).toEqual(['github']);
    const id = Number((await harness.db('tools').where({ slug: 'vscode' }).first('id')).id);
    const res = await agent.post(`/admin/tools/${id}`).type('form').send({
      csrf,
      slug: 'vscode',
      name: 'Visual Studio Code',
      url: 'https://code.visualstudio.com',
      category: 'developer',
      tags: '编辑器, git',
      sort_order: '0',
    });
    expect(res.status).toBe(303);
    expect(slugsIn((await agent.get('/tag/git')).text)).toEqual(['vscode', 'github']); // no visits: id order
    expect((await agent.get(`/tag/${encodeURIComponent('IDE')}`)).status).toBe(404);
  });
});
