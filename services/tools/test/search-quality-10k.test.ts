import { buildSearchIndex, buildToolForms, FIELD_SLOTS, type SearchIndex } from '../src/catalog/search-engine-index';
import { createSearchEngine } from '../src/catalog/search-engine';
import { generatedSearchSnapshot, generateToolDirectory } from '../src/catalog/search-generated-directory';
import {
  describeSearchQuality,
  evaluateSearch,
  loadHeldOutSearchJudgements,
  loadSearchJudgements,
  RECALL_AT_10_TARGET,
  SUCCESS_AT_3_TARGET,
  type SearchQuality,
} from '../src/catalog/search-quality';

/**
 * The judged set against the benchmark's generated directory of 10,000 tools (the sample's 247 at the head
 * of a long tail of tools named and tagged with the same words), indexed in memory as a replica does,
 * without a database: popular tools that match well must come before long-tail ones that match as well.
 */

const SIZE = 10_000;
/** What the 10,000-tool run reached (0.935 / 0.924 at first; 0.974 / 0.961 with popularity floored and saturated, named tools and mean split parts), less a margin. */
const SUCCESS_AT_3_FLOOR = 0.96;
const RECALL_AT_10_FLOOR = 0.95;

const snapshot = generatedSearchSnapshot(generateToolDirectory(SIZE));
const slugs = new Map(snapshot.tools.map((tool) => [tool.id, tool.slug]));
const sampleSlugs = new Set(snapshot.tools.filter((tool) => !/^g\d{5}-/.test(tool.slug)).map((tool) => tool.slug));
const engine = createSearchEngine({
  readRevision: async () => snapshot.revision,
  loadSnapshot: async () => snapshot,
  loadVisits: async () => new Map(snapshot.tools.map((tool) => [tool.id, tool.visits])),
  visitsRefreshMs: Number.MAX_SAFE_INTEGER,
  now: Date.now,
});
const top = async (query: string, limit = 10) => (await engine.search(query, 0, limit)).ids.map((id) => slugs.get(id)!);

beforeAll(async () => {
  await engine.refresh();
}, 180_000);

describe('search at 10,000 tools (the generated long-tail directory)', () => {
  it('when the directory is generated, then it holds 10,000 tools, the 247 sample tools among them', () => {
    expect(snapshot.tools).toHaveLength(SIZE);
    expect(sampleSlugs.size).toBe(247);
  });

  it.each(['jietu', '截图', '截圖', 'jie tu', '好用的截图软件', '推荐一个好用的截图软件'])(
    'when %s is searched, then the first three are screenshot tools of the sample, Snipaste among them (not long-tail tools named 截图…)',
    async (query) => {
      const first = await top(query, 3);
      expect(first.filter((slug) => sampleSlugs.has(slug))).toEqual(first);
      expect(first).toContain('snipaste');
    },
  );

  it.each([
    ['抠图', 'remove-bg'],
    ['koutu', 'remove-bg'],
    ['网盘', 'baidu-netdisk'],
    ['翻译', 'google-translate'],
    ['代码编辑器', 'vscode'],
    ['screen recorder', 'screentogif'],
  ])('when %s is searched, then %s, a popular tool tagged with it, comes before every long-tail tool', async (query, expected) => {
    const found = await top(query, 10);
    const firstLongTail = found.findIndex((slug) => !sampleSlugs.has(slug));
    expect(found).toContain(expected);
    if (firstLongTail !== -1) expect(found.indexOf(expected)).toBeLessThan(firstLongTail);
  });

  it('when a phrase is read apart and a popular tool only describes one of its words (Smallpdf: 合并), then it still comes before long-tail tools tagged with both', async () => {
    const found = await top('有没有免费的在线pdf合并工具', 10);
    const firstLongTail = found.findIndex((slug) => !sampleSlugs.has(slug));
    expect(found.slice(0, 3)).toContain('smallpdf');
    expect(firstLongTail).toBeGreaterThan(found.indexOf('smallpdf'));
  });

  it.each([
    ['录屏管家', 'g04626-nulu'],
    ['Nura PSD', 'g02911-nura'],
  ])('when the exact name of a long-tail tool (%s) is searched, then that tool still comes first: popularity never beats a much better text match', async (query, expected) => {
    expect((await top(query, 3))[0]).toBe(expected);
  });

  it('when a word of the query names a tool (ps → Photoshop in ps抠图), then that tool comes first, and the tools for the rest (remove.bg for 抠图) are found without that word', async () => {
    const found = await top('ps抠图', 10);
    expect(found[0]).toBe('photoshop');
    // Hundreds of long-tail tools tagged 抠图 have a word starting ps or the pinyin initials ps: they must not shut remove.bg out.
    expect(found).toContain('remove-bg');
  });

  it(`when every judged query is searched, then success@3 ≥ ${SUCCESS_AT_3_FLOOR} and recall@10 ≥ ${RECALL_AT_10_FLOOR}`, async () => {
    const quality: SearchQuality = await evaluateSearch((query) => top(query), loadSearchJudgements());
    process.stdout.write(`at ${SIZE.toLocaleString('en')} tools: ${describeSearchQuality(quality)}\n`);
    expect(quality.successAt3).toBeGreaterThanOrEqual(SUCCESS_AT_3_FLOOR);
    expect(quality.recallAt10).toBeGreaterThanOrEqual(RECALL_AT_10_FLOOR);
  });

  // The held-out set (data/search-judgements-heldout.json, never tuned on) reaches the overall targets here too (0.986 / 0.983).
  it(`when every held-out query is searched, then success@3 ≥ ${SUCCESS_AT_3_TARGET} and recall@10 ≥ ${RECALL_AT_10_TARGET}`, async () => {
    const quality: SearchQuality = await evaluateSearch((query) => top(query), loadHeldOutSearchJudgements());
    process.stdout.write(`held-out set at ${SIZE.toLocaleString('en')} tools: ${describeSearchQuality(quality)}\n`);
    expect(quality.successAt3).toBeGreaterThanOrEqual(SUCCESS_AT_3_TARGET);
    expect(quality.recallAt10).toBeGreaterThanOrEqual(RECALL_AT_10_TARGET);
  });
});

describe('one-character lookups', () => {
  it('when a character starts many forms, then its precomputed matches are exactly what a scan of the forms finds', () => {
    const forms = snapshot.tools.slice(0, 1_000).map(buildToolForms);
    const tabled = buildSearchIndex(forms, { singleTableMinForms: 1 });
    const scanned = buildSearchIndex(forms, { singleTableMinForms: Number.POSITIVE_INFINITY });
    const matches = (index: SearchIndex, part: string) => {
      const found = index.lookup(part);
      const result = [...found.tools].sort((a, b) => a - b).map((tool) => [tool, ...found.scores.subarray(tool * FIELD_SLOTS, tool * FIELD_SLOTS + FIELD_SLOTS)]);
      index.release(found);
      return result;
    };
    for (const part of ['s', 'a', 'j', '7', '截', '图', 'ü', '']) expect([part, matches(tabled, part)]).toEqual([part, matches(scanned, part)]);
    expect(matches(tabled, 's').length).toBeGreaterThan(500);
  });
});
