/**
 * A per-app cache for answers that would otherwise hit the database on every request: the aggregates
 * (stats, category list, list totals) and, for a shorter time, list pages and search results. Values
 * may be up to `ttlMs` old; concurrent misses share one load. At most `maxEntries` are kept (the oldest
 * goes first), so endless distinct pages or queries cannot grow it without bound. Cached values are
 * shared between requests: callers must not change them.
 *
 * With `revision` (the catalog revision, see revision-watch.ts), an entry loaded under an older
 * revision is not served: an edited tool shows in the API as soon as this process knows of the edit.
 */
export function createTtlCache(ttlMs: number, now: () => number, maxEntries = 2000, revision?: () => Promise<number>) {
  const entries = new Map<string, { expiresAt: number; revision: number; value: Promise<unknown> }>();
  return {
    async get<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (ttlMs <= 0) return load();
      const known = revision ? await revision() : 0;
      const entry = entries.get(key);
      if (entry && entry.expiresAt > now() && entry.revision === known) return entry.value as Promise<T>;
      entries.delete(key); // re-inserted below, as the newest
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      const value = load();
      entries.set(key, { expiresAt: now() + ttlMs, revision: known, value });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      return value;
    },
  };
}
