import { randomBytes } from 'node:crypto';
import knex, { type Knex } from 'knex';
import { migrateToLatest, openDb } from '@platform/kit';
import { describeWithRealServer } from '@platform/kit/testing';
import { migrationSource } from '../src/db/migration-source';
import { realDatabaseUrl } from './support/harness';

const ROWS = 1_000_000;
const USERS = 100;
/** What no request may wait on a lock: the requests below give up (55P03) after it. */
const LOCK_WAIT_LIMIT_MS = 200;

interface LoadOutcome {
  requests: number;
  lockWaitsOverLimit: number;
  otherErrors: string[];
  slowestMs: number;
}

/**
 * Reads (a list page) and writes (an upload's insert, a rename) on `images`, as fast as they go until
 * `stop`, each connection giving up on any lock after LOCK_WAIT_LIMIT_MS.
 */
function runLoad(url: string, stop: Promise<void>): Promise<LoadOutcome> {
  const db = knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: 6, afterCreate: (conn: { query(sql: string, done: (error?: Error) => void): void }, done: (error?: Error) => void) => conn.query(`SET lock_timeout = '${LOCK_WAIT_LIMIT_MS}ms'`, done) },
  });
  const outcome: LoadOutcome = { requests: 0, lockWaitsOverLimit: 0, otherErrors: [], slowestMs: 0 };
  let stopped = false;
  void stop.then(() => (stopped = true));
  const random = (n: number) => 1 + Math.floor(Math.random() * n);
  const operations = [
    () => db.raw("SELECT id, original_name FROM images WHERE user_id = ? AND status = 'stored' ORDER BY id DESC LIMIT 20", [random(USERS)]),
    () => db.raw("SELECT id, original_name FROM images WHERE user_id = ? AND status = 'stored' ORDER BY id DESC LIMIT 20", [random(USERS)]),
    () => {
      const user = random(USERS);
      const key = randomBytes(12).toString('hex');
      return db.raw("INSERT INTO images (user_id, category_id, storage_key, format, original_name, file_size, width, height, status) VALUES (?, ?, ?, 'png', ?, 100, 1, 1, 'stored')", [user, user, key, `${key}.png`]);
    },
    () => db.raw('UPDATE images SET original_name = ? WHERE id = ?', [`renamed-${random(1000)}.png`, random(ROWS)]),
  ];
  const worker = async (index: number) => {
    while (!stopped) {
      const started = performance.now();
      try {
        await operations[index % operations.length]!();
      } catch (error) {
        if ((error as { code?: string }).code === '55P03') {
          outcome.lockWaitsOverLimit += 1;
          if (process.env.DEBUG_LOCKS) process.stdout.write(`LOCKWAIT ${Date.now()} op${index % operations.length}\n`);
        }
        else outcome.otherErrors.push((error as Error).message);
      }
      outcome.slowestMs = Math.max(outcome.slowestMs, performance.now() - started);
      outcome.requests += 1;
    }
  };
  return Promise.all([0, 1, 2, 3, 4, 5].map(worker)).then(async () => {
    await db.destroy();
    return outcome;
  });
}

/** A report or a pg_dump: one transaction reading `images` for `ms`, holding its ACCESS SHARE lock throughout. */
async function longRead(db: Knex, ms: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT count(*) FROM images WHERE id < 1000');
    await trx.raw('SELECT pg_sleep(?)', [ms / 1000]);
  });
}

// Needs real Postgres: concurrent sessions, locks and a table of a million rows. Runs in CI's own step
// (TEST_ONLINE_MIGRATIONS=1, about a minute here), not in every run of the suite.
const TITLE = 'migrations on a 1,000,000-row images table under load (real Postgres)';
const describeOnline = (body: () => void) =>
  process.env.TEST_ONLINE_MIGRATIONS === '1' ? describeWithRealServer('TEST_DATABASE_URL', TITLE, body) : describe.skip(`${TITLE} (needs TEST_ONLINE_MIGRATIONS=1)`, body);
describeOnline(() => {
  test('when every migration after the first is applied while lists, uploads and renames run and a 3 s read holds the table, then no request waits more than 200 ms on a lock and the counts are exact', async () => {
    const name = `images_online_${randomBytes(6).toString('hex')}`;
    const admin = knex({ client: 'pg', connection: realDatabaseUrl!, pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${name}`);
    const url = new URL(realDatabaseUrl!);
    url.pathname = `/${name}`;
    const db = await openDb({ kind: 'postgres', url: url.toString() }, { migrationSource, poolMax: 2 });
    try {
      await db.migrate.up();
      const seeding = performance.now();
      await db.raw(`INSERT INTO users (id, name, token_hash, group_id) SELECT i, 'user' || i, lpad(i::text, 64, '0'), 1 FROM generate_series(1, ${USERS}) AS i`);
      await db.raw(`INSERT INTO categories (id, user_id, name, is_default) SELECT i, i, '默认', true FROM generate_series(1, ${USERS}) AS i`);
      // The trigram index is built once after the rows, not row by row: the same index, made faster.
      await db.raw('DROP INDEX images_original_name_trgm');
      await db.raw(
        `INSERT INTO images (user_id, category_id, storage_key, format, original_name, file_size, width, height, status)
         SELECT 1 + i % ${USERS}, 1 + i % ${USERS}, 'seed/' || i, 'png', 'photo-' || i || '.png', 100, 1, 1, CASE WHEN i % 10 = 0 THEN 'binned' ELSE 'stored' END
         FROM generate_series(1, ${ROWS}) AS i`,
      );
      await db.raw('CREATE INDEX images_original_name_trgm ON images USING gin (lower(original_name) gin_trgm_ops)');
      await db.raw(`SELECT setval('users_id_seq', ${USERS}), setval('categories_id_seq', ${USERS})`);
      await db.raw('VACUUM ANALYZE images');
      process.stdout.write(`seeded ${ROWS} images in ${Math.round((performance.now() - seeding) / 1000)} s\n`);

      let stopLoad!: () => void;
      const load = runLoad(url.toString(), new Promise<void>((resolve) => (stopLoad = resolve)));
      const reader = knex({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 1 } });
      const migrating = performance.now();
      const read = longRead(reader, 3_000);
      if (process.env.DEBUG_LOCKS) db.on('query', (q: { sql: string }) => process.stdout.write(`Q ${Date.now()} ${q.sql.slice(0, 90).replace(/\s+/g, ' ')}\n`));
      await migrateToLatest(db);
      const migrationMs = performance.now() - migrating;
      await read;
      stopLoad();
      const outcome = await load;
      await reader.destroy();
      process.stdout.write(
        `migrated in ${Math.round(migrationMs)} ms under load: ${outcome.requests} requests, ${outcome.lockWaitsOverLimit} waited over ${LOCK_WAIT_LIMIT_MS} ms on a lock, slowest ${Math.round(outcome.slowestMs)} ms\n`,
      );

      expect(outcome.otherErrors).toEqual([]);
      expect(outcome.lockWaitsOverLimit).toBe(0);
      expect(outcome.requests).toBeGreaterThan(100);
      expect(await db('knex_migrations').orderBy('id').pluck('name')).toEqual(await migrationSource.getMigrations([]));
      const counted = await db.raw(`
        SELECT (SELECT coalesce(sum(count), 0) FROM image_counts WHERE status = 'stored')::bigint AS kept,
               (SELECT count(*) FROM images WHERE status = 'stored')::bigint AS actual`);
      expect(Number(counted.rows[0].kept)).toBe(Number(counted.rows[0].actual));
      const invalid = await db.raw('SELECT count(*)::int AS n FROM pg_index WHERE NOT indisvalid');
      expect(invalid.rows[0].n).toBe(0);
    } finally {
      await db.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    }
  }, 600_000);
});
