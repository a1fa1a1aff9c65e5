import fs from 'node:fs';
import request from 'supertest';
import type express from 'express';
import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { importCatalog } from '../src/catalog/importer';
import { sampleDatasetPath } from '../src/demo';
import { importJson, openHarness, type Harness } from './support/harness';

let harness: Harness;
let app: express.Express;

interface SampleTool {
  slug: string;
  name: string;
  description: string;
  tags: string[];
  category: string;
}
const sample = JSON.parse(fs.readFileSync(sampleDatasetPath(), 'utf8')) as { categories: { slug: string; name: string }[]; tools: SampleTool[] };
const categoryNames = new Map(sample.categories.map((category) => [category.slug, category.name]));
/** Independent oracle: the slugs whose name, slug, tags, description or category name contain the keyword, ignoring case. */
const mentioning = (keyword: string) =>
  sample.tools
    .filter((tool) =>
      [tool.name, tool.slug, tool.tags.join(' '), tool.description, categoryNames.get(tool.category)].join('\n').toLowerCase().includes(keyword.toLowerCase()),
    )
    .map((tool) => tool.slug);
const taggedOrNamed = (text: string) => sample.tools.filter((tool) => tool.tags.includes(text) || tool.name.includes(text)).map((tool) => tool.slug);

beforeAll(async () => {
  harness = await openHarness();
  const report = await importCatalog(createCatalogRepository(harness.db), fs.readFileSync(sampleDatasetPath(), 'utf8'), 'json');
  expect(report.tools.rejected).toEqual([]);
  expect(report.categories.rejected).toEqual([]);
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.db('tools').update({ visits: 0 });
  app = harness.app();
});

const search = (query: string) => request(app).get(`/api/index.php?action=search&${query}`);
const slugs = (res: request.Response): string[] => res.body.data.data.map((tool: { slug: string }) => tool.slug);

function expectError(res: request.Response, status: number, message: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code: status, message } });
}

describe('search over the sample dataset', () => {
  it('when searching 截图 without a key, then the tool named 截图… comes first, then tag matches, all containing 截图 (category name included)', async () => {
    const res = await search(`q=${encodeURIComponent('截图')}`);
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(res.body.data.data.length);
    expect(slugs(res)[0]).toBe('snipping-tool');
    expect([...slugs(res)].sort()).toEqual(mentioning('截图').sort());
    expect(slugs(res)).toEqual(expect.arrayContaining(['snipaste', 'pixpin', 'sharex', 'flameshot']));
    const tagged = taggedOrNamed('截图');
    expect(slugs(res).slice(0, tagged.length).sort()).toEqual([...tagged].sort());
    for (const tool of res.body.data.data) {
      expect([tool.name, tool.slug, tool.tags.join(' '), tool.description, tool.category_name].join(' ')).toContain('截图');
    }
  });

  it('when searching 压缩, then every tool mentioning it is found and image compressors (tagged) rank before description-only matches', async () => {
    const res = await search(`q=${encodeURIComponent('压缩')}&limit=50`);
    const expected = mentioning('压缩');
    expect(expected.length).toBeGreaterThan(10);
    expect(res.body.data.total).toBe(expected.length);
    const ranked = slugs(res);
    expect([...ranked].sort()).toEqual([...expected].sort());
    expect(ranked).toEqual(expect.arrayContaining(['tinypng', 'squoosh', '7-zip', 'json-formatter']));
    expect(ranked.indexOf('tinypng')).toBeLessThan(ranked.indexOf('json-formatter'));
  });

  it('when searching the full pinyin jietu, the initials jt or the spaced jie tu, then every tool tagged or named 截图 comes first, the one named 截图… first', async () => {
    const tagged = taggedOrNamed('截图');
    expect(tagged.length).toBeGreaterThanOrEqual(10);
    for (const keyword of ['jietu', 'JieTu', 'jt', 'jie%20tu', 'jie%20%20TU']) {
      const found = slugs(await search(`q=${keyword}`));
      expect(found[0]).toBe('snipping-tool');
      expect(found.slice(0, tagged.length).sort()).toEqual([...tagged].sort());
    }
  });

  it('when searching the pinyin of a tag, mixed with hanzi or not, then the tools tagged 图片压缩 are found, as they are for 图片压缩', async () => {
    const tagged = taggedOrNamed('图片压缩');
    expect(tagged.length).toBe(6);
    for (const keyword of ['图片压缩', 'tupianyasuo', 'tpys', 'tupian压缩', 'tu pian ya suo', '图片在线压缩工具']) {
      const found = slugs(await search(`q=${encodeURIComponent(keyword)}`));
      expect(found.slice(0, tagged.length).sort()).toEqual([...tagged].sort());
    }
  });

  it('when searching PS, then Adobe Photoshop, whose tags include PS, comes first, and two letters inside a latin word (upscayl) do not match', async () => {
    const found = slugs(await search('q=PS'));
    expect(found[0]).toBe('photoshop');
    expect(found).toContain('photopea');
    expect(found).not.toEqual(expect.arrayContaining(['hoppscotch']));
    expect(found).not.toEqual(expect.arrayContaining(['upscayl']));
    // Three letters do: pdf inside smallpdf.
    expect(slugs(await search('q=pdf'))).toContain('smallpdf');
  });

  it('when a latin word of five or more letters has one letter wrong, missing, extra or swapped, then the tool is still found', async () => {
    for (const [typo, slug] of [['photshop', 'photoshop'], ['figmma', 'figma'], ['postmam', 'postman'], ['obsidain', 'obsidian'], ['Bitwardn', 'bitwarden']]) {
      expect(slugs(await search(`q=${typo}`))[0]).toBe(slug);
    }
    // Two edits are not a typo; neither is one edit in a four-letter word (`gimp` → `gimq`).
    expect((await search('q=phtshopp')).body.data.total).toBe(0);
    expect(slugs(await search('q=gimq'))).not.toContain('gimp');
  });

  it('when several words are given, then every one must match, in any order', async () => {
    const forward = slugs(await search(`q=${encodeURIComponent('pdf 转换')}`));
    const backward = slugs(await search(`q=${encodeURIComponent('转换 pdf')}`));
    expect(forward).toEqual(backward);
    const both = sample.tools
      .filter((tool) => {
        const text = [tool.name, tool.slug, tool.tags.join(' '), tool.description, categoryNames.get(tool.category)].join('\n').toLowerCase();
        return text.includes('pdf') && text.includes('转换');
      })
      .map((tool) => tool.slug);
    expect([...forward].sort()).toEqual([...both].sort());
    expect(forward[0]).toBe('xunjiepdf');
  });

  it('when one word names a tool (ps → Photoshop through its alias), then that tool comes first and the other tools need only the other words', async () => {
    const res = await search(`q=${encodeURIComponent('ps抠图')}&limit=50`);
    expect(res.body.data.match).toEqual({ mode: 'all', terms: ['ps', '抠图'], ignored: [] });
    const found = slugs(res);
    expect(found[0]).toBe('photoshop');
    expect(found).toContain('remove-bg');
    // Photoshop, and exactly the tools 抠图 alone finds (none of which is named PS).
    const cutout = slugs(await search(`q=${encodeURIComponent('抠图')}&limit=50`));
    expect([...found].sort()).toEqual([...new Set(['photoshop', ...cutout])].sort());
  });

  it('when spaced latin words are a name written with a dot (chart js for Chart.js), then they are read joined, the alias of one of them (js) notwithstanding', async () => {
    const res = await search(`q=${encodeURIComponent('chart js')}`);
    expect(slugs(res)[0]).toBe('chartjs');
    expect(res.body.data.match).toEqual({ mode: 'all', terms: ['chart js'], ignored: [] });
  });

  it('when paging through a search, then the pages are disjoint, in rank order, with the true total and page count', async () => {
    const all = await search(`q=${encodeURIComponent('压缩')}&limit=50`);
    const total = all.body.data.total;
    expect(total).toBeGreaterThan(10);
    const pages: string[] = [];
    for (let page = 1; page <= Math.ceil(total / 7); page += 1) {
      const res = await search(`q=${encodeURIComponent('压缩')}&limit=7&page=${page}`);
      expect(res.body.data).toMatchObject({ total, page, limit: 7, total_pages: Math.ceil(total / 7) });
      pages.push(...slugs(res));
    }
    expect(pages).toEqual(slugs(all));
    const pastTheEnd = await search(`q=${encodeURIComponent('压缩')}&limit=7&page=99`);
    expect(pastTheEnd.body.data).toEqual({ data: [], total, page: 99, limit: 7, total_pages: Math.ceil(total / 7), match: { mode: 'all', terms: ['压缩'], ignored: [] } });
    expectError(await search('q=e&page=0'), 400, '参数错误: page 必须是正整数');
    expectError(await search('q=e&page=1.5'), 400, '参数错误: page 必须是正整数');
    expectError(await search('q=e&page=1234567890'), 400, '参数错误: page 超出范围');
  });

  it('when searching in another case, then it matches case-insensitively and the exact name ranks first', async () => {
    const res = await search('q=GITHUB');
    expect(slugs(res)[0]).toBe('github');
    expect(slugs(res)).toEqual(expect.arrayContaining(['github-copilot', 'jsdelivr', 'stackedit']));
    expect(slugs(res).indexOf('github-copilot')).toBeLessThan(slugs(res).indexOf('jsdelivr'));
  });

  it('when two tools match at the same rank, then the more visited comes first', async () => {
    // Independent oracle of the documented tiers (pinyin plays no part for a Latin keyword without Chinese names matching).
    const tier = (tool: { name: string; slug: string; tags: string[] }, keyword: string): number => {
      const name = tool.name.toLowerCase();
      if (name === keyword) return 0;
      if (name.startsWith(keyword)) return 1;
      if (name.includes(keyword) || tool.slug.includes(keyword)) return 2;
      if (tool.tags.some((tag) => tag.toLowerCase().includes(keyword))) return 3;
      return 4;
    };
    const beforeRes = await search('q=png');
    expect(beforeRes.body.data.total).toBe(beforeRes.body.data.data.length); // every match is on the page
    const before = beforeRes.body.data.data as { slug: string; name: string; tags: string[]; visits: number }[];
    const lastTier = tier(before[before.length - 1]!, 'png');
    const tierMates = before.filter((tool) => tier(tool, 'png') === lastTier);
    expect(tierMates.length).toBeGreaterThan(1); // otherwise the boost below could not reorder anything
    const boostedSlug = tierMates[tierMates.length - 1]!.slug;
    await harness.db('tools').where({ slug: boostedSlug }).update({ visits: 500 });
    // Visits reach the ranking when the search index reads them (at start, then every 30 s): a new process here.
    app = harness.app();

    const after = (await search('q=png')).body.data.data as typeof before;
    const tiers = after.map((tool) => tier(tool, 'png'));
    expect(tiers).toEqual([...tiers].sort((a, b) => a - b));
    const sameTier = after.filter((tool) => tier(tool, 'png') === lastTier);
    expect(sameTier[0]).toMatchObject({ slug: boostedSlug, visits: 500 });
    expect(sameTier.map((tool) => tool.slug).sort()).toEqual(tierMates.map((tool) => tool.slug).sort());
  });

  it('when limit is given, then it is honoured, clamped to 50 and reported', async () => {
    const limited = await search(`q=${encodeURIComponent('压缩')}&limit=3`);
    expect(limited.body.data.data).toHaveLength(3);
    expect(limited.body.data).toMatchObject({ total: mentioning('压缩').length, limit: 3 });
    // 支持 (supports) is in 72 sample descriptions.
    const clamped = await search(`q=${encodeURIComponent('支持')}&limit=500`);
    expect(clamped.body.data.limit).toBe(50);
    const manyDigits = await search(`q=${encodeURIComponent('支持')}&limit=10000000000`);
    expect(manyDigits.status).toBe(200);
    expect(manyDigits.body.data.limit).toBe(50);
    expect(clamped.body.data.data).toHaveLength(50);
    const defaulted = await search(`q=${encodeURIComponent('支持')}`);
    expect(defaulted.body.data.data).toHaveLength(20);
    expect(defaulted.body.data.limit).toBe(20);
    expectError(await search('q=e&limit=0'), 400, '参数错误: limit 必须是正整数');
  });

  it('when q is missing or blank, then 400', async () => {
    expectError(await search(''), 400, '参数错误: q 不能为空');
    expectError(await search('q='), 400, '参数错误: q 不能为空');
    expectError(await search('q=%20%20'), 400, '参数错误: q 不能为空');
  });

  it('when q is 10 KB, contains NUL or repeats, then 400 and never 500', async () => {
    expectError(await search(`q=${'a'.repeat(10 * 1024)}`), 400, '参数错误: q 长度不能超过 100 个字符');
    expectError(await search('q=a%00b'), 400, '参数错误: q 包含非法字符');
    expectError(await search('q=a&q=b'), 400, '参数错误: q 只能出现一次');
  });

  it('when q holds LIKE wildcards, quotes or emoji, then they are matched literally', async () => {
    const percent = await search('q=%25');
    expect(percent.status).toBe(200);
    expect(percent.body.data).toEqual({ data: [], total: 0, page: 1, limit: 20, total_pages: 0, match: { mode: 'all', terms: [], ignored: [] } });
    expect((await search('q=_')).body.data.total).toBe(0);
    expect((await search(`q=${encodeURIComponent("' OR 1=1 --")}`)).body.data.total).toBe(0);
    expect((await search(`q=${encodeURIComponent('😀')}`)).body.data.total).toBe(0);
    expect((await search(`q=${encodeURIComponent('\\')}`)).status).toBe(200);
  });

  it('when searching again within a second, then the only query is the page’s tools; an import by another process is searched after the next revision check', async () => {
    let clock = Date.parse('2026-11-28T09:00:00Z');
    const { app: timed, services } = harness.appWithServices({ clock: () => new Date(clock) });
    await services.search.refresh();
    const searchFor = async (keyword: string) => slugs(await request(timed).get(`/api/index.php?action=search&q=${encodeURIComponent(keyword)}`));
    expect(await searchFor('vscode')).toContain('vscode');

    const queries: string[] = [];
    const onQuery = (query: { sql: string }) => queries.push(query.sql);
    harness.db.on('query', onQuery);
    try {
      expect(await searchFor('截图')).toContain('snipaste');
      expect(await searchFor('jietu')).toContain('snipaste');
      expect(queries).toHaveLength(2);
      expect(queries.filter((sql) => /catalog_revision/.test(sql))).toEqual([]);

      // Another process renames a tool: the revision moves in its transaction.
      const vscode = sample.tools.find((tool) => tool.slug === 'vscode')!;
      expect((await importJson(harness.db, { tools: [{ ...vscode, name: 'Kodeditor Renamed' }] })).tools.updated).toBe(1);
      queries.length = 0;
      expect(await searchFor('Kodeditor')).toEqual([]);
      expect(queries.filter((sql) => /catalog_revision/.test(sql))).toEqual([]);

      clock += 1000;
      await searchFor('Kodeditor');
      // The watch reads the revision, finds it moved and starts a rebuild (whose snapshot reads it too).
      expect(queries.filter((sql) => /catalog_revision/.test(sql)).length).toBeGreaterThanOrEqual(1);
      // The rebuild started by that check: once it is done, the new name is found.
      await services.search.refresh();
      expect(await searchFor('Kodeditor')).toEqual(['vscode']);
    } finally {
      harness.db.off('query', onQuery);
      await importCatalog(createCatalogRepository(harness.db), fs.readFileSync(sampleDatasetPath(), 'utf8'), 'json');
    }
  });
});
