import fs from 'node:fs';
import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { createDirectoryService } from '../src/catalog/directory-service';
import { importCatalog } from '../src/catalog/importer';
import {
  describeSearchQuality,
  evaluateSearch,
  loadHeldOutSearchJudgements,
  loadSearchJudgements,
  PER_KIND_TARGET,
  RECALL_AT_10_TARGET,
  SUCCESS_AT_3_TARGET,
} from '../src/catalog/search-quality';
import { sampleDatasetPath } from '../src/demo';
import { openHarness, type Harness } from './support/harness';

let harness: Harness;
const sample = JSON.parse(fs.readFileSync(sampleDatasetPath(), 'utf8')) as { tools: { slug: string }[] };
const judgements = loadSearchJudgements();
const heldOut = loadHeldOutSearchJudgements();

beforeAll(async () => {
  harness = await openHarness();
  const report = await importCatalog(createCatalogRepository(harness.db), fs.readFileSync(sampleDatasetPath(), 'utf8'), 'json');
  expect(report.tools.rejected).toEqual([]);
});
afterAll(async () => {
  await harness.close();
});

describe('the judged query set', () => {
  it('when it is read, then it has at least 150 queries of every kind the issues name, each naming sample tools and a first among its expected', () => {
    expect(judgements.length).toBeGreaterThanOrEqual(150);
    const kinds = new Set(judgements.map((judgement) => judgement.kind));
    for (const kind of KINDS) expect(kinds).toContain(kind);
    const slugs = new Set(sample.tools.map((tool) => tool.slug));
    const named = (judgement: (typeof judgements)[number]) => [...(judgement.first ? [judgement.first] : []), ...judgement.expected];
    const unknown = judgements.flatMap((judgement) => named(judgement).filter((slug) => !slugs.has(slug)).map((slug) => `${judgement.query}: ${slug}`));
    expect(unknown).toEqual([]);
    expect(judgements.filter((judgement) => judgement.first !== undefined && !judgement.expected.includes(judgement.first)).map((judgement) => judgement.query)).toEqual([]);
    expect(judgements.filter((judgement) => judgement.kind === 'nothing').every((judgement) => judgement.expected.length === 0)).toBe(true);
    expect(new Set(judgements.map((judgement) => judgement.query)).size).toBe(judgements.length);
  });
});

const KINDS = ['hanzi', 'pinyin', 'initials', 'spaced-pinyin', 'english', 'abbreviation', 'typo', 'multi-word', 'phrase', 'traditional', 'tones', 'fuzzy', 'english-alias', 'joined-names', 'popularity', 'short-prefix', 'nothing'];

describe('the held-out query set', () => {
  it('when it is read, then it has at least 40 queries of every kind, none of them in the judged set, each naming sample tools', () => {
    expect(heldOut.length).toBeGreaterThanOrEqual(40);
    const kinds = new Set(heldOut.map((judgement) => judgement.kind));
    for (const kind of [...KINDS, 'mixed']) expect(kinds).toContain(kind);
    const slugs = new Set(sample.tools.map((tool) => tool.slug));
    const unknown = heldOut.flatMap((judgement) => judgement.expected.filter((slug) => !slugs.has(slug)).map((slug) => `${judgement.query}: ${slug}`));
    expect(unknown).toEqual([]);
    expect(heldOut.filter((judgement) => judgement.first !== undefined && !judgement.expected.includes(judgement.first)).map((judgement) => judgement.query)).toEqual([]);
    const judged = new Set(judgements.map((judgement) => judgement.query));
    expect(heldOut.filter((judgement) => judged.has(judgement.query)).map((judgement) => judgement.query)).toEqual([]);
    expect(new Set(heldOut.map((judgement) => judgement.query)).size).toBe(heldOut.length);
  });
});

describe('search quality over the sample directory', () => {
  it(`when every judged query is searched, then success@3 ≥ ${SUCCESS_AT_3_TARGET} and mean recall@10 ≥ ${RECALL_AT_10_TARGET} overall, and both ≥ ${PER_KIND_TARGET} in every kind`, async () => {
    const directory = createDirectoryService({ catalog: createCatalogRepository(harness.db), cacheTtlMs: 0, now: Date.now });
    const search = async (query: string) => (await directory.search({ keyword: query, page: 1, limit: 10 })).data.map((tool) => tool.slug);
    const quality = await evaluateSearch(search, judgements);
    process.stdout.write(`${describeSearchQuality(quality)}\n`);
    expect(quality.successAt3).toBeGreaterThanOrEqual(SUCCESS_AT_3_TARGET);
    expect(quality.recallAt10).toBeGreaterThanOrEqual(RECALL_AT_10_TARGET);
    const belowTarget = quality.perKind.filter((kind) => kind.successAt3 < PER_KIND_TARGET || kind.recallAt10 < PER_KIND_TARGET);
    expect(belowTarget).toEqual([]);
  });

  // The held-out set reaches the overall targets (1.000 / 0.995). Per kind it is reported, not asserted: a kind has
  // three to seven queries, so one miss (`怎么给图片去背景` finds two of three tools) moves it by 0.1 or more.
  it(`when every held-out query is searched, then success@3 ≥ ${SUCCESS_AT_3_TARGET} and mean recall@10 ≥ ${RECALL_AT_10_TARGET} overall`, async () => {
    const directory = createDirectoryService({ catalog: createCatalogRepository(harness.db), cacheTtlMs: 0, now: Date.now });
    const search = async (query: string) => (await directory.search({ keyword: query, page: 1, limit: 10 })).data.map((tool) => tool.slug);
    const quality = await evaluateSearch(search, heldOut);
    process.stdout.write(`held-out set: ${describeSearchQuality(quality)}\n`);
    expect(quality.successAt3).toBeGreaterThanOrEqual(SUCCESS_AT_3_TARGET);
    expect(quality.recallAt10).toBeGreaterThanOrEqual(RECALL_AT_10_TARGET);
  });
});
