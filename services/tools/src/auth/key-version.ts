import { randomInt } from 'node:crypto';
import type { RedisClient } from '../ratelimit/redis-connection';

/**
 * The version of the API keys table as a whole: every change to a key (disable, enable, limit) moves
 * it. A replica may keep a key's row in memory only together with the version it was read under, and
 * trusts it only while the version is still the same, which it reads on every request: a disabled key
 * stops at once on every replica, whatever is cached.
 */
export interface KeyVersion {
  /** The current version; undefined when it cannot be known now (then nothing cached is trusted). */
  current(): Promise<string | undefined>;
  /** Moves the version after a change to a key; rejects when it could not. */
  changed(): Promise<void>;
}

/**
 * Where a version starts. Redis can lose the version (a restart without its data): started again at a
 * fixed value, it would come back to one a replica cached a key under before a change, and that replica
 * would serve the key as it was. A random start (of 2^47) does not come back.
 */
const randomStart = (): string => String(randomInt(2 ** 47));

/** Shared by every replica through Redis: one GET per request, sent beside the limiter's command. */
export function redisKeyVersion(redis: RedisClient, keyPrefix: string): KeyVersion {
  const key = `${keyPrefix}:api-keys:version`;
  return {
    async current() {
      if (redis.status !== 'ready') return undefined;
      try {
        const version = await redis.get(key);
        if (version !== null) return version;
        // Missing: nothing cached is trusted on this request; the next one finds a version to cache under.
        await redis.set(key, randomStart(), 'NX');
        return undefined;
      } catch {
        return undefined;
      }
    },
    async changed() {
      await redis.set(key, randomStart(), 'NX');
      await redis.incr(key);
    },
  };
}

/**
 * For a database only this process can write (embedded PGlite: admin commands reach it through this
 * process's admin socket), a counter in memory is the whole truth.
 */
export function memoryKeyVersion(): KeyVersion {
  let version = 0;
  return {
    current: async () => String(version),
    changed: async () => {
      version++;
    },
  };
}
