import type { Knex } from 'knex';
import type { Logger } from 'pino';

export const HOUR_MS = 3600 * 1000;
/** Rows older than this are dropped (at most once an hour, by the flush). */
const KEPT_DAYS = 90;

export interface KeyHour {
  keyId: number;
  /** Start of the clock hour (UTC). */
  hour: Date;
  requests: number;
}

const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * Each API key's requests per clock hour, kept in Postgres (`api_key_hourly_requests`) for the admin's
 * keys page. The limiter's own counters cannot serve: its window starts at a key's first request, not on the
 * hour, and ends with the hour. So every request the limiter counts for a key is counted here too, in memory
 * (no extra round trip on the request's path), and added to the table every `flushEveryMs` by one upsert
 * that adds (replicas' counts sum up). A process that dies loses at most its last interval's counts.
 */
export function createKeyHourCounter(options: { db: Knex; now: () => number; flushEveryMs?: number; logger?: Logger }) {
  const { db, now } = options;
  /** `${keyId}:${hourMs}` -> requests not yet written. */
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let prunedHour = 0;

  async function write(batch: Map<string, number>): Promise<void> {
    const rows = [...batch].map(([key, requests]) => {
      const [keyId, hourMs] = key.split(':').map(Number);
      return { keyId: keyId!, hour: new Date(hourMs!), requests };
    });
    if (rows.length > 0) {
      // Joined with api_keys: a key deleted since its requests were counted takes them with it.
      await db.raw(
        `INSERT INTO api_key_hourly_requests (api_key_id, hour, requests)
         SELECT v.api_key_id, v.hour, v.requests
         FROM (VALUES ${rows.map(() => '(?::integer, ?::timestamptz, ?::bigint)').join(', ')}) AS v (api_key_id, hour, requests)
         JOIN api_keys k ON k.id = v.api_key_id
         ON CONFLICT (api_key_id, hour) DO UPDATE SET requests = api_key_hourly_requests.requests + EXCLUDED.requests`,
        rows.flatMap((row) => [row.keyId, row.hour.toISOString(), row.requests]),
      );
    }
    const hour = hourOf(now());
    if (hour !== prunedHour) {
      prunedHour = hour;
      await db('api_key_hourly_requests').where('hour', '<', new Date(hour - KEPT_DAYS * 24 * HOUR_MS)).delete();
    }
  }

  const counter = {
    /** One request counted for key `keyId` now. */
    count(keyId: number): void {
      const key = `${keyId}:${hourOf(now())}`;
      pending.set(key, (pending.get(key) ?? 0) + 1);
    },

    /** Writes what was counted; on failure the counts are kept for the next flush. */
    flush(): Promise<void> {
      flushing ??= (async () => {
        const batch = pending;
        pending = new Map();
        try {
          await write(batch);
        } catch (error) {
          for (const [key, requests] of batch) pending.set(key, (pending.get(key) ?? 0) + requests);
          options.logger?.warn({ err: error }, 'API key hourly counts not written; kept for the next try');
        }
      })().finally(() => {
        flushing = undefined;
      });
      return flushing;
    },

    /** Requests per key and hour since `since`: the table's rows plus this process's counts not yet written. */
    async hours(since: Date): Promise<KeyHour[]> {
      const rows: { api_key_id: number; hour: Date | string; requests: string | number }[] = await db('api_key_hourly_requests')
        .select('api_key_id', 'hour', 'requests')
        .where('hour', '>=', since);
      const byKey = new Map<string, KeyHour>();
      for (const row of rows) {
        const hour = new Date(row.hour);
        byKey.set(`${row.api_key_id}:${hour.getTime()}`, { keyId: Number(row.api_key_id), hour, requests: Number(row.requests) });
      }
      for (const [key, requests] of pending) {
        const [keyId, hourMs] = key.split(':').map(Number);
        if (hourMs! < since.getTime()) continue;
        const known = byKey.get(key);
        if (known) known.requests += requests;
        else byKey.set(key, { keyId: keyId!, hour: new Date(hourMs!), requests });
      }
      return [...byKey.values()].sort((a, b) => a.hour.getTime() - b.hour.getTime());
    },

    start(): void {
      timer ??= setInterval(() => void counter.flush(), options.flushEveryMs ?? 10_000);
      timer.unref();
    },

    /** Stops the timer and writes the last counts (the service's shutdown). */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await counter.flush();
    },
  };
  return counter;
}

export type KeyHourCounter = ReturnType<typeof createKeyHourCounter>;
