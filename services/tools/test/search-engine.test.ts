import { createSearchEngine, type SearchSnapshot, type SnapshotTool } from '../src/catalog/search-engine';

/**
 * The engine over a catalog this test holds in memory: the revision and each snapshot load are the test's to
 * release, so it can show what searches answer while a rebuild is under way, without any timing.
 */

const tool = (id: number, name: string, tags: string[]): SnapshotTool => ({
  id,
  name,
  slug: `tool-${id}`,
  tags,
  description: '',
  categoryName: '图片处理',
  featured: false,
  visits: 0,
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function heldCatalog() {
  let revision = 1;
  const pending: ReturnType<typeof deferred<void>>[] = [];
  let nextStarted = deferred<void>();
  const catalogs = new Map<number, SnapshotTool[]>();
  return {
    catalogs,
    setRevision(value: number) {
      revision = value;
    },
    /** Resolves when the engine next asks for a snapshot. */
    nextLoad: () => nextStarted.promise,
    /** Lets the oldest held snapshot load finish. */
    releaseLoad: () => pending.shift()!.resolve(),
    engine: createSearchEngine({
      readRevision: async () => revision,
      loadSnapshot: async (): Promise<SearchSnapshot> => {
        const at = revision;
        const gate = deferred<void>();
        pending.push(gate);
        nextStarted.resolve();
        nextStarted = deferred<void>();
        await gate.promise;
        const tools = catalogs.get(at);
        if (!tools) throw new Error(`no catalog at revision ${at}`);
        return { revision: at, tools, aliases: [] };
      },
      loadVisits: async () => new Map(),
      visitsRefreshMs: 60_000,
      now: () => 0,
    }),
  };
}

describe('search engine rebuilds', () => {
  it('when there is no index yet, then the first search waits for it to be built', async () => {
    const held = heldCatalog();
    held.catalogs.set(1, [tool(1, 'Snipaste', ['截图'])]);
    const loaded = held.nextLoad();
    let answered = false;
    const first = held.engine.search('截图', 0, 10).then((hits) => {
      answered = true;
      return hits;
    });
    await loaded;
    expect(answered).toBe(false);
    held.releaseLoad();
    expect((await first).ids).toEqual([1]);
  });

  it('when the catalog changes, then searches are answered from the previous index while the new one is built, and from the new one after', async () => {
    const held = heldCatalog();
    held.catalogs.set(1, [tool(1, 'Snipaste', ['截图'])]);
    held.catalogs.set(2, [tool(1, 'Snipaste', ['截图']), tool(2, 'PixPin', ['截图', '贴图'])]);
    const warm = held.engine.refresh();
    await held.nextLoad();
    held.releaseLoad();
    await warm;

    held.setRevision(2);
    const rebuildStarted = held.nextLoad();
    // The snapshot of revision 2 is held: these answers cannot wait for it, or the test would hang here.
    expect((await held.engine.search('截图', 0, 10)).ids).toEqual([1]);
    await rebuildStarted;
    expect((await held.engine.search('截图', 0, 10)).ids).toEqual([1]);
    expect((await held.engine.search('pixpin', 0, 10)).total).toBe(0);

    const rebuilt = held.engine.refresh();
    held.releaseLoad();
    await rebuilt;
    expect((await held.engine.search('截图', 0, 10)).ids.sort()).toEqual([1, 2]);
    expect((await held.engine.search('pixpin', 0, 10)).ids).toEqual([2]);
  });

  it('when a rebuild fails, then the previous index keeps answering and the next search starts another rebuild', async () => {
    const held = heldCatalog();
    held.catalogs.set(1, [tool(1, 'Snipaste', ['截图'])]);
    const warm = held.engine.refresh();
    await held.nextLoad();
    held.releaseLoad();
    await warm;

    // Revision 2 has no catalog stored: its snapshot load throws once released.
    held.setRevision(2);
    const failing = held.nextLoad();
    expect((await held.engine.search('截图', 0, 10)).ids).toEqual([1]);
    await failing;
    const failed = held.engine.refresh();
    held.releaseLoad();
    await expect(failed).rejects.toThrow();

    held.catalogs.set(2, [tool(3, 'Snagit', ['截图'])]);
    const retried = held.nextLoad();
    expect((await held.engine.search('截图', 0, 10)).ids).toEqual([1]);
    await retried;
    const rebuilt = held.engine.refresh();
    held.releaseLoad();
    await rebuilt;
    expect((await held.engine.search('截图', 0, 10)).ids).toEqual([3]);
  });
});
