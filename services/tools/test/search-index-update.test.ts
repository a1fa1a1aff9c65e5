import { createSearchEngine, type SearchEngine, type SearchSnapshot, type SnapshotTool } from '../src/catalog/search-engine';
import { generatedSearchSnapshot, generateToolDirectory } from '../src/catalog/search-generated-directory';
import { loadSearchJudgements } from '../src/catalog/search-quality';

/**
 * An edit of a few tools updates the index answering searches instead of building it afresh
 * (search-engine.ts, updateSearchIndex): after random edits, deletions, additions, category renames and
 * alias changes, every judged query (and one- and two-letter prefixes) gets the answer an index built
 * from scratch on the same catalog gives: the same tools in the same order, the same total and match.
 */

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function engineOver(read: () => SearchSnapshot, minForms: number, kinds: string[] = []): SearchEngine {
  return createSearchEngine({
    readRevision: async () => read().revision,
    loadSnapshot: async () => read(),
    loadVisits: async () => new Map(),
    visitsRefreshMs: Number.MAX_SAFE_INTEGER,
    now: () => 0,
    pause: () => Promise.resolve(),
    index: { singleTableMinForms: minForms },
    onBuiltKind: (kind) => kinds.push(kind),
  });
}

const queries = [
  ...new Set([
    ...loadSearchJudgements().map((judgement) => judgement.query),
    ...'abcdefghijklmnopqrstuvwxyz图视在pdf'.split(''),
    ...['ai', 'js', 'sh', 'zh', 'ps', 'tu', 'jie', '截图', '在线工具', 'xiugai', '修改', 'gaiming', 'renamed'],
  ]),
];

async function answers(engine: SearchEngine): Promise<unknown[]> {
  const found: unknown[] = [];
  for (const query of queries) found.push({ query, ...(await engine.search(query, 0, 20)) });
  return found;
}

/** One random change of the catalog: the kinds an editor's save, the CLI and an alias edit make. */
function change(snapshot: SearchSnapshot, random: () => number): SearchSnapshot {
  const tools = [...snapshot.tools];
  let aliases = snapshot.aliases;
  const pick = () => Math.floor(random() * tools.length);
  const other = () => tools[pick()]!;
  let nextId = Math.max(...tools.map((tool) => tool.id)) + 1;
  const edits = 1 + Math.floor(random() * 4);
  for (let i = 0; i < edits; i += 1) {
    const kind = Math.floor(random() * 9);
    const at = pick();
    const tool = tools[at]!;
    if (kind === 0) tools[at] = { ...tool, name: `${other().name} 修改` };
    else if (kind === 1) tools[at] = { ...tool, description: other().description };
    else if (kind === 2) tools[at] = { ...tool, tags: [...other().tags].reverse() };
    else if (kind === 3) tools[at] = { ...tool, slug: `${tool.slug}-renamed`, name: 'GaiMing Renamed' };
    else if (kind === 4) tools.splice(at, 1);
    else if (kind === 5) tools.push({ ...other(), id: nextId++, slug: `added-${nextId}`, name: `${other().name}加`, visits: Math.floor(random() * 5000), featured: random() < 0.2 });
    else if (kind === 6) {
      // A category renamed: every tool of it changes (a few hundred here; more than a share of the catalog builds afresh).
      const from = tool.categoryName;
      const to = random() < 0.5 ? `${from}修改` : other().categoryName;
      tools.forEach((each, position) => {
        if (each.categoryName === from) tools[position] = { ...each, categoryName: to };
      });
    } else if (kind === 7) {
      aliases = random() < 0.5 ? aliases.filter((_, index) => index % 7 !== Math.floor(random() * 7)) : [...aliases, { term: 'xiugai', alias: 'renamed' }, { term: tool.name.toLowerCase(), alias: 'gaiming' }];
    } else tools[at] = { ...tool, visits: Math.floor(random() * 100_000), featured: !tool.featured };
  }
  return { revision: snapshot.revision + 1, tools, aliases };
}

describe('search index updated after an edit', () => {
  jest.setTimeout(600_000);

  it.each([4096, 300])('when tools are edited, deleted and added, and categories and aliases change, then the updated index answers as one built afresh (one-character tables from %i forms)', async (minForms) => {
    let snapshot = generatedSearchSnapshot(generateToolDirectory(1000, 7));
    const kinds: string[] = [];
    const updated = engineOver(() => snapshot, minForms, kinds);
    await updated.refresh();
    const random = prng(minForms);
    for (let round = 0; round < 10; round += 1) {
      snapshot = change(snapshot, random);
      await updated.refresh();
      const fresh = engineOver(() => snapshot, minForms);
      await fresh.refresh();
      expect({ round, answers: await answers(updated) }).toEqual({ round, answers: await answers(fresh) });
    }
    // Most rounds were updates (a category rename of many tools may build afresh).
    expect(kinds.filter((kind) => kind === 'edit').length).toBeGreaterThanOrEqual(6);
  });

  it('when one tool is saved in a catalog of 10,000, then it is searchable without building the index afresh', async () => {
    let snapshot = generatedSearchSnapshot(generateToolDirectory(10_000));
    const kinds: string[] = [];
    const engine = engineOver(() => snapshot, 4096, kinds);
    await engine.refresh();
    const tools: SnapshotTool[] = snapshot.tools.map((tool, i) => (i === 5 ? { ...tool, name: '独一无二的保存测试' } : tool));
    snapshot = { ...snapshot, revision: 2, tools };
    await engine.refresh();
    expect(kinds).toEqual(['full', 'edit']);
    expect((await engine.search('独一无二的保存测试', 0, 10)).ids).toEqual([tools[5]!.id]);
    expect((await engine.search('duyiwuerdebaocunceshi', 0, 10)).ids).toEqual([tools[5]!.id]);
  });
});
