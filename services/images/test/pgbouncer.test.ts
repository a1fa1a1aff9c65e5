import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import pino from 'pino';
import request from 'supertest';
import { openDb } from '@platform/kit';
import { CURRENT_PGBOUNCER_BINARY, describeWithRealServer, openTestDatabase, PGBOUNCER_BINARY, startPgBouncer, type PgBouncerOptions, type RunningPgBouncer } from '@platform/kit/testing';
import { loadConfig } from '../src/config';
import { migrationSource } from '../src/db/migration-source';
import { openImagesService } from '../src/open-service';
import { createTestUser, fixture, TEST_KEYS } from './support/harness';
import { imagesMigrations } from './support/service-migrations';

// Needs real Postgres and Debian's PgBouncer (apt-get install pgbouncer; 1.18 here, which cannot carry
// named prepared statements at all): the pooler operators and managed Postgres put in front. With
// PGBOUNCER_CURRENT_BINARY (a PgBouncer ≥ 1.21: scripts/ci/current-pgbouncer.sh builds 1.24;
// CI sets it) the same cases run against it without and with max_prepared_statements.
const poolers: { name: string; options: PgBouncerOptions; carriesNamedStatements: boolean }[] = [
  { name: 'Debian 12 PgBouncer (1.18)', options: { binary: PGBOUNCER_BINARY }, carriesNamedStatements: false },
  ...(CURRENT_PGBOUNCER_BINARY
    ? [
        { name: 'current PgBouncer, max_prepared_statements = 0', options: { binary: CURRENT_PGBOUNCER_BINARY, maxPreparedStatements: 0 }, carriesNamedStatements: false },
        { name: 'current PgBouncer, max_prepared_statements = 200', options: { binary: CURRENT_PGBOUNCER_BINARY, maxPreparedStatements: 200 }, carriesNamedStatements: true },
      ]
    : []),
];

describeWithRealServer('TEST_DATABASE_URL', 'behind PgBouncer in transaction pooling mode (real Postgres and PgBouncer)', () => {
  let database: { db: Knex; url: string; drop(): Promise<void> };

  beforeAll(async () => {
    database = await openTestDatabase('images_pgb', imagesMigrations);
  });

  afterAll(async () => {
    await database?.db.destroy();
    await database?.drop();
  });

  describe.each(poolers)('$name', ({ options, carriesNamedStatements }) => {
    let bouncer: RunningPgBouncer;

    beforeAll(async () => {
      if (!fs.existsSync(options.binary!)) throw new Error(`no PgBouncer at ${options.binary}: apt-get install pgbouncer`);
      // Two server connections for a client pool of eight: consecutive transactions of one client land on
      // different server connections, as they do under load in production.
      bouncer = await startPgBouncer(database.url, { ...options, poolSize: 2 });
    });

    afterAll(async () => {
      await bouncer?.stop();
    });

    /** The service through the pooler with `env`, 128 lists (16 at a time) and 6 uploads; the statuses, /readyz and the log. */
    async function serveThroughPooler(env: Record<string, string>) {
      const url = new URL(database.url);
      const pooled = new URL(bouncer.url);
      pooled.pathname = url.pathname;
      const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-pgb-'));
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const config = loadConfig({ ...TEST_KEYS, DATABASE_URL: pooled.toString(), STORAGE_DIR: storageDir, PUBLIC_BASE_URL: 'http://img.test', DATABASE_POOL_MAX: '8', ...env });
      const db = await openDb(config.database, { migrationSource, poolMax: config.databasePoolMax });
      const service = await openImagesService(config, { db, logger, housekeepingIntervalMs: null });
      try {
        const user = await createTestUser(database.db, `pgb_${Math.random().toString(36).slice(2, 8)}`);
        const statuses: number[] = [];
        const uploads = Array.from({ length: 6 }, () =>
          request(service.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('tiny.png')),
        );
        for (const res of await Promise.all(uploads)) statuses.push(res.status);
        for (let round = 0; round < 8; round += 1) {
          const lists = Array.from({ length: 16 }, () => request(service.app).get('/api/image.php?action=list').set('X-API-Token', user.token));
          for (const res of await Promise.all(lists)) statuses.push(res.status);
        }
        const ready = await request(service.app).get('/readyz');
        return { failed: statuses.filter((status) => status !== 200).length, total: statuses.length, ready: [ready.status, ready.body], log: lines.join('') };
      } finally {
        await service.close();
        fs.rmSync(storageDir, { recursive: true, force: true });
      }
    }

    test('when the service runs with the defaults, then every list and upload answers 200, /readyz is ready and the log says statements are unnamed', async () => {
      const outcome = await serveThroughPooler({});
      expect([outcome.failed, outcome.total]).toEqual([0, 134]);
      expect(outcome.ready).toEqual([200, { status: 'ok', database: 'ok', bucket: 'not_configured' }]);
      expect(outcome.log).toContain('prepared statements: unnamed (auto: a pooler is between this replica and Postgres)');
    });

    if (carriesNamedStatements) {
      test('when named statements are forced, then the pooler carries them: every list and upload answers 200 and /readyz is ready', async () => {
        const outcome = await serveThroughPooler({ DATABASE_PREPARED_STATEMENTS: 'true' });
        expect([outcome.failed, outcome.total]).toEqual([0, 134]);
        expect(outcome.ready).toEqual([200, { status: 'ok', database: 'ok', bucket: 'not_configured' }]);
        expect(outcome.log).toContain('prepared statements: named (DATABASE_PREPARED_STATEMENTS)');
      });
    } else {
      test('when named statements are forced, then requests fail, /readyz answers 503 with statements failing and the log says what to set', async () => {
        const outcome = await serveThroughPooler({ DATABASE_PREPARED_STATEMENTS: 'true' });
        expect(outcome.failed).toBeGreaterThan(0);
        process.stdout.write(`forced named statements behind ${bouncer.description}: ${outcome.failed}/${outcome.total} requests failed\n`);
        expect(outcome.ready).toEqual([503, { status: 'unavailable', database: 'ok', statements: 'failing' }]);
        expect(outcome.log).toContain('set DATABASE_PREPARED_STATEMENTS=false or auto');
      });
    }
  });

  test('when the service reaches Postgres itself with the defaults, then it uses named statements (the fast path) and says so', async () => {
    const lines: string[] = [];
    const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'images-pgb-'));
    const config = loadConfig({ ...TEST_KEYS, DATABASE_URL: database.url, STORAGE_DIR: storageDir, PUBLIC_BASE_URL: 'http://img.test' });
    const db = await openDb(config.database, { migrationSource });
    const service = await openImagesService(config, { db, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }), housekeepingIntervalMs: null });
    await service.close();
    fs.rmSync(storageDir, { recursive: true, force: true });
    expect(lines.join('')).toContain('prepared statements: named (auto: connected to Postgres directly)');
  });
});
