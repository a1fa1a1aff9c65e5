import { createSearchQueries } from '../src/catalog/search-repository';
import { openHarness, type Harness } from './support/harness';

let harness: Harness;

beforeAll(async () => {
  harness = await openHarness();
});
afterAll(async () => {
  await harness.close();
});

describe('the visit counts the search engine re-reads', () => {
  it('when the directory has more tools than one page, then every tool’s visits are read, with a pause between pages', async () => {
    await harness.reset();
    const [category] = await harness.db('categories').insert({ name: '效率', slug: 'efficiency' }).returning('id');
    const tools = Array.from({ length: 1_234 }, (_, i) => ({
      slug: `tool-${i}`,
      name: `Tool ${i}`,
      url: `https://tool-${i}.example.com/`,
      category_id: (category as { id: number }).id,
      visits: i * 7,
    }));
    await harness.db.batchInsert('tools', tools, 500);
    // Deleted ids leave gaps: pages go by id, not by position.
    await harness.db('tools').whereIn('slug', ['tool-10', 'tool-499', 'tool-500']).delete();

    let pauses = 0;
    const visits = await createSearchQueries(harness.db).toolVisits(async () => {
      pauses += 1;
    });

    const stored: { id: number; visits: string | number }[] = await harness.db('tools').select('id', 'visits');
    expect(stored).toHaveLength(1_231);
    expect(visits).toEqual(new Map(stored.map((row) => [row.id, Number(row.visits)])));
    // Three pages of 500, 500 and 231 tools: the event loop is let go between them.
    expect(pauses).toBe(2);
  });
});
