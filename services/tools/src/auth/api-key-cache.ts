import type { ApiKeysRepository, ApiKeyRow } from './api-keys-repository';
import { findApiKey, hashApiKey } from './api-keys';
import type { KeyVersion } from './key-version';

/** A cached row is also dropped after this long, so a version that failed to move cannot keep it forever. */
export const KEY_CACHE_TTL_MS = 60_000;
/** Keys are few; unknown keys are never cached, so random ones cannot fill it. */
const MAX_CACHED_KEYS = 10_000;

export interface KeyLookup {
  /** The key's row as it is now (undefined: unknown). A row still valid in the cache is returned as the same object. */
  find(presented: string): Promise<ApiKeyRow | undefined>;
  /**
   * The cached row without checking the version: only a guess, which lets the caller count the request
   * while `find` confirms it. Undefined when nothing is cached.
   */
  guess(presented: string): ApiKeyRow | undefined;
}

/**
 * Finds keys through an in-process cache checked against `version` on every request. A row comes from
 * the cache only when the version read now is the version it was read under; otherwise, or when the
 * version is unknown (Redis down), from the database. Without a version source there is no cache.
 */
export function createKeyLookup(repository: ApiKeysRepository, version: KeyVersion | undefined, now: () => number): KeyLookup {
  if (!version) return { find: (presented) => findApiKey(repository, presented), guess: () => undefined };
  const cache = new Map<string, { row: ApiKeyRow; version: string; expiresAt: number }>();
  return {
    guess(presented) {
      if (presented.length === 0 || presented.length > 256) return undefined;
      return cache.get(hashApiKey(presented))?.row;
    },
    async find(presented) {
      if (presented.length === 0 || presented.length > 256) return findApiKey(repository, presented);
      const digest = hashApiKey(presented);
      const currentVersion = await version.current();
      const cached = cache.get(digest);
      if (cached && currentVersion !== undefined && cached.version === currentVersion && cached.expiresAt > now()) return cached.row;
      cache.delete(digest);
      const row = await repository.findByHash(digest);
      if (row && currentVersion !== undefined) {
        if (cache.size >= MAX_CACHED_KEYS) cache.clear();
        // Read under currentVersion: a change after that read moves the version, and this entry lapses.
        cache.set(digest, { row, version: currentVersion, expiresAt: now() + KEY_CACHE_TTL_MS });
      }
      return row;
    },
  };
}
