import fs from 'node:fs';
import request from 'supertest';
import type express from 'express';
import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { importCatalog } from '../src/catalog/importer';
import { sampleDatasetPath } from '../src/demo';
import { openHarness, type Harness } from './support/harness';

let harness: Harness;
let app: express.Express;

interface SampleTool {
  slug: string;
  name: string;
  description: string;
  tags: string[];
}
const sample = JSON.parse(fs.readFileSync(sampleDatasetPath(), 'utf8')) as { tools: SampleTool[] };
/** Independent oracle: the slugs whose name, slug, tags or description contain the keyword, ignoring case. */
const mentioning = (keyword: string) =>
  sample.tools
    .filter((tool) => [tool.name, tool.slug, tool.tags.join(' '), tool.description].join('\n').toLowerCase().includes(keyword.toLowerCase()))
    .map((tool) => tool.slug);

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
  it('when searching 截图 without a key, then the tool named 截图… comes first, then tag matches, all containing 截图', async () => {
    const res = await search(`q=${encodeURIComponent('截图')}`);
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(res.body.data.data.length);
    expect(slugs(res)[0]).toBe('snipping-tool');
    expect([...slugs(res)].sort()).toEqual(mentioning('截图').sort());
    expect(slugs(res)).toEqual(expect.arrayContaining(['snipaste', 'pixpin', 'sharex', 'flameshot']));
    for (const tool of res.body.data.data) {
      expect([tool.name, tool.slug, tool.tags.join(' '), tool.description].join(' ')).toContain('截图');
    }
  });

  it('when searching 压缩, then every tool mentioning it is found and image compressors (tagged) rank before description-only matches', async () => {
    const res = await search(`q=${encodeURIComponent('压缩')}`);
    const expected = mentioning('压缩');
    expect(expected.length).toBeGreaterThan(10);
    expect(res.body.data.total).toBe(expected.length);
    const ranked = slugs(res);
    expect([...ranked].sort()).toEqual([...expected].sort());
    expect(ranked).toEqual(expect.arrayContaining(['tinypng', 'squoosh', '7-zip', 'json-formatter']));
    expect(ranked.indexOf('tinypng')).toBeLessThan(ranked.indexOf('json-formatter'));
  });

  it('when searching the full pinyin jietu or the initials jt, then the Chinese-named screenshot tool is found', async () => {
    expect(slugs(await search('q=jietu'))).toEqual(['snipping-tool']);
    expect(slugs(await search('q=jt'))).toContain('snipping-tool');
    expect(slugs(await search('q=JieTu'))).toEqual(['snipping-tool']);
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
    const clamped = await search('q=e&limit=500');
    expect(clamped.body.data.limit).toBe(50);
    const manyDigits = await search('q=e&limit=10000000000');
    expect(manyDigits.status).toBe(200);
    expect(manyDigits.body.data.limit).toBe(50);
    expect(clamped.body.data.data).toHaveLength(50);
    const defaulted = await search('q=e');
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
    expect(percent.body.data).toEqual({ data: [], total: 0, limit: 20 });
    expect((await search('q=_')).body.data.total).toBe(0);
    expect((await search(`q=${encodeURIComponent("' OR 1=1 --")}`)).body.data.total).toBe(0);
    expect((await search(`q=${encodeURIComponent('😀')}`)).body.data.total).toBe(0);
    expect((await search(`q=${encodeURIComponent('\\')}`)).status).toBe(200);
  });
});
