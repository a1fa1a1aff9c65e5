/**
 * The website's data cache: page data is loaded once and served from memory until the catalog changes
 * (its revision moves, see the catalog_revision migration) or `ttlMs` passes (visit counts age). The
 * revision is read at most once per `revisionCheckMs` per process, so a change made on any replica, by
 * the CLI or by hand, shows within about a second, at the cost of one one-row read a second.
 *
 * Bounded: search keywords and slugs come from visitors, so the least recently used entries go first
 * once `maxEntries` is reached. Concurrent misses of one key share one load; a failed load is not kept.
 */
export interface SiteCacheOptions {
  ttlMs: number;
  revisionCheckMs: number;
  maxEntries: number;
  readRevision: () => Promise<number>;
  now: () => number;
}

interface Entry {
  revision: number;
  loadedAt: number;
  value: Promise<unknown>;
}

export function createSiteCache(options: SiteCacheOptions) {
  const entries = new Map<string, Entry>();
  let revision: number | undefined;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let checking: Promise<number> | undefined;

  function currentRevision(): Promise<number> | number {
    if (revision !== undefined && options.now() - checkedAt < options.revisionCheckMs) return revision;
    checking ??= options
      .readRevision()
      .then((read) => {
        if (read !== revision) entries.clear();
        revision = read;
        checkedAt = options.now();
        return read;
      })
      .finally(() => {
        checking = undefined;
      });
    return checking;
  }

  return {
    async get<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (options.ttlMs <= 0) return load();
      const known = await currentRevision();
      const entry = entries.get(key);
      if (entry && entry.revision === known && options.now() - entry.loadedAt < options.ttlMs) {
        // Most recently used last: Map keeps insertion order, so the first key is the one to evict.
        entries.delete(key);
        entries.set(key, entry);
        return entry.value as Promise<T>;
      }
      const value = load();
      entries.set(key, { revision: known, loadedAt: options.now(), value });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      while (entries.size > options.maxEntries) entries.delete(entries.keys().next().value!);
      return value;
    },
    /** How many entries are held (for the tests). */
    size(): number {
      return entries.size;
    },
  };
}

export type SiteCache = ReturnType<typeof createSiteCache>;
