import fs from 'node:fs';
import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { createDirectoryService } from '../src/catalog/directory-service';
import { importCatalog } from '../src/catalog/importer';
import {
  describeSearchQuality,
  evaluateSearch,
  loadSearchJudgements,
  RECALL_AT_10_TARGET,
  SUCCESS_AT_3_TARGET,
} from '../src/catalog/search-quality';
import { sampleDatasetPath } from '../src/demo';
import { openHarness, type Harness } from './support/harness';

let harness: Harness;
const sample = JSON.parse(fs.readFileSync(sampleDatasetPath(), 'utf8')) as { tools: { slug: string }[] };
const judgements = loadSearchJudgements();

beforeAll(async () => {
  harness = await openHarness();
  const report = await importCatalog(createCatalogRepository(harness.db), fs.readFileSync(sampleDatasetPath(), 'utf8'), 'json');
  expect(report.tools.rejected).toEqual([]);
});
afterAll(async () => {
  await harness.close();
});

describe('the judged query set', () => {
  it('when it is read, then it has at least 60 queries of every kind the issue names, each naming sample tools and a first among its expected', () => {
    expect(judgements.length).toBeGreaterThanOrEqual(60);
    const kinds = new Set(judgements.map((judgement) => judgement.kind));
    for (const kind of ['hanzi', 'pinyin', 'initials', 'spaced-pinyin', 'english', 'abbreviation', 'typo', 'multi-word']) expect(kinds).toContain(kind);
    const slugs = new Set(sample.tools.map((tool) => tool.slug));
    const unknown = judgements.flatMap((judgement) => [judgement.first, ...judgement.expected].filter((slug) => !slugs.has(slug)).map((slug) => `${judgement.query}: ${slug}`));
    expect(unknown).toEqual([]);
    expect(judgements.filter((judgement) => !judgement.expected.includes(judgement.first)).map((judgement) => judgement.query)).toEqual([]);
    expect(new Set(judgements.map((judgement) => judgement.query)).size).toBe(judgements.length);
  });
});

describe('search quality over the sample directory', () => {
  it(`when every judged query is searched, then success@3 ≥ ${SUCCESS_AT_3_TARGET} and mean recall@10 ≥ ${RECALL_AT_10_TARGET}`, async () => {
    const directory = createDirectoryService({ catalog: createCatalogRepository(harness.db), cacheTtlMs: 0, now: Date.now });
    const search = async (query: string) => (await directory.search({ keyword: query, page: 1, limit: 10 })).data.map((tool) => tool.slug);
    const quality = await evaluateSearch(search, judgements);
    process.stdout.write(`${describeSearchQuality(quality)}\n`);
    expect(quality.successAt3).toBeGreaterThanOrEqual(SUCCESS_AT_3_TARGET);
    expect(quality.recallAt10).toBeGreaterThanOrEqual(RECALL_AT_10_TARGET);
  });
});
