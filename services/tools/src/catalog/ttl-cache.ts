/**
 * A per-app cache for the few aggregate answers (stats, category list) that would otherwise scan every
 * tool on each request. Values may be up to `ttlMs` old; concurrent misses share one load.
 */
export function createTtlCache(ttlMs: number, now: () => number) {
  const entries = new Map<string, { expiresAt: number; value: Promise<unknown> }>();
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (ttlMs <= 0) return load();
      const entry = entries.get(key);
      if (entry && entry.expiresAt > now()) return entry.value as Promise<T>;
      const value = load();
      entries.set(key, { expiresAt: now() + ttlMs, value });
      value.catch(() => entries.delete(key));
      return value;
    },
  };
}
