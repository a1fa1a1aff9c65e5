import { createSiteCache } from '../src/site/site-cache';

function cacheWith(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let clock = 0;
  let revision = 1;
  let revisionReads = 0;
  const cache = createSiteCache({
    ttlMs: options.ttlMs ?? 60000,
    revisionCheckMs: 1000,
    maxEntries: options.maxEntries ?? 100,
    readRevision: async () => {
      revisionReads += 1;
      return revision;
    },
    now: () => clock,
  });
  return {
    cache,
    advance: (ms: number) => (clock += ms),
    bumpRevision: () => (revision += 1),
    revisionReads: () => revisionReads,
  };
}

describe('site cache', () => {
  it('when one key is asked by many at once, then it is loaded once and the revision read once', async () => {
    const { cache, revisionReads } = cacheWith();
    let loads = 0;
    const load = async () => {
      loads += 1;
      return 'page';
    };
    expect(await Promise.all(Array.from({ length: 10 }, () => cache.get('home', load)))).toEqual(Array(10).fill('page'));
    expect(loads).toBe(1);
    expect(revisionReads()).toBe(1);
  });

  it('when the revision moves, then every entry is dropped after the next check; when only time passes, the TTL drops them', async () => {
    const { cache, advance, bumpRevision, revisionReads } = cacheWith({ ttlMs: 5000 });
    let version = 0;
    const load = async () => (version += 1);
    expect(await cache.get('k', load)).toBe(1);
    bumpRevision();
    expect(await cache.get('k', load)).toBe(1); // checked less than a second ago
    advance(1000);
    expect(await cache.get('k', load)).toBe(2);
    expect(revisionReads()).toBe(2);
    advance(4999); // loaded at 1000: fresh until 6000
    expect(await cache.get('k', load)).toBe(2);
    advance(1);
    expect(await cache.get('k', load)).toBe(3);
  });

  it('when more keys than the bound are loaded, then the least recently used go first', async () => {
    const { cache } = cacheWith({ maxEntries: 3 });
    const loads: string[] = [];
    const get = (key: string) =>
      cache.get(key, async () => {
        loads.push(key);
        return key;
      });
    for (const key of ['a', 'b', 'c']) await get(key);
    await get('a'); // a is now the most recent
    await get('d'); // evicts b
    expect(cache.size()).toBe(3);
    await get('a');
    await get('c');
    await get('b');
    expect(loads).toEqual(['a', 'b', 'c', 'd', 'b']);
  });

  it('when a load fails, then the failure is not kept and the next ask loads again', async () => {
    const { cache } = cacheWith();
    await expect(cache.get('k', async () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('k', async () => 'ok')).toBe('ok');
  });

  it('when the TTL is 0, then nothing is kept and the revision is never read', async () => {
    const { cache, revisionReads } = cacheWith({ ttlMs: 0 });
    let loads = 0;
    await cache.get('k', async () => (loads += 1));
    await cache.get('k', async () => (loads += 1));
    expect(loads).toBe(2);
    expect(cache.size()).toBe(0);
    expect(revisionReads()).toBe(0);
  });
});
