import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Knex } from 'knex';
import pino from 'pino';
import { Registry } from 'prom-client';
import { databaseTarget } from '../src/db/database-target';
import { openDb } from '../src/db/open-db';
import { observeRequests } from '../src/http/request-observation';
import { registerCapacityMetrics } from '../src/metrics/capacity-metrics';

const noMigrations: Knex.MigrationSource<unknown> = { getMigrations: async () => [], getMigrationName: () => '', getMigration: async () => ({ up: async () => undefined }) };

async function gaugeValue(registry: Registry, name: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  if (!metric) throw new Error(`no metric ${name}`);
  return Number(metric.values[0]?.value);
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

// The real Postgres when the tests have one (a pool of 2), else embedded PGlite (one connection).
const target = databaseTarget(process.env.TEST_DATABASE_URL ?? 'pglite:memory', process.cwd());

describe('capacity metrics', () => {
  let db: Knex;
  let registry: Registry;
  let server: http.Server;
  let baseUrl: string;
  const held = { entered: deferred(), release: deferred() };

  beforeAll(async () => {
    db = await openDb(target, { migrationSource: noMigrations, poolMax: 2 });
    registry = new Registry();
    const { inFlight } = registerCapacityMetrics(registry, 'svc', db);
    const app = express();
    app.use(observeRequests({ logger: pino({ level: 'silent' }), loggedQueryNames: [], observe: () => undefined, inFlight }));
    app.get('/held', async (_req, res) => {
      held.entered.resolve();
      await held.release.promise;
      res.json({ ok: true });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await db.destroy();
  });

  test('when a request is being answered, then requests_in_flight counts it, and not after it is answered', async () => {
    expect(await gaugeValue(registry, 'svc_http_requests_in_flight')).toBe(0);
    const answer = fetch(`${baseUrl}/held`);
    await held.entered.promise;
    expect(await gaugeValue(registry, 'svc_http_requests_in_flight')).toBe(1);
    held.release.resolve();
    expect((await answer).status).toBe(200);
    // The gauge goes down when the response's connection is done with it ('close'), just after the body.
    await new Promise<void>((resolve) => {
      const check = async () => ((await gaugeValue(registry, 'svc_http_requests_in_flight')) === 0 ? resolve() : setImmediate(check));
      void check();
    });
  });

  test('when every pooled connection is held, then connections_in_use is the pool size and one more query is counted as waiting', async () => {
    const pool = (db.client as { pool: { max: number; on(event: string, listener: () => void): void; removeListener(event: string, listener: () => void): void } }).pool;
    const max = pool.max;
    expect(await gaugeValue(registry, 'svc_db_pool_max')).toBe(max);
    const release = deferred();
    const holders = Array.from({ length: max }, () => deferred());
    const transactions = holders.map((entered) =>
      db.transaction(async (trx) => {
        await trx.raw('select 1');
        entered.resolve();
        await release.promise;
      }),
    );
    await Promise.all(holders.map((h) => h.promise));
    const queued = new Promise<void>((resolve) => pool.on('acquireRequest', resolve));
    const extra = db.raw('select 1').then(() => undefined); // a knex query runs when it is awaited or then'd
    await queued;
    expect(await gaugeValue(registry, 'svc_db_pool_connections_in_use')).toBe(max);
    expect(await gaugeValue(registry, 'svc_db_pool_waiting')).toBe(1);
    release.resolve();
    await Promise.all([...transactions, extra]);
    expect(await gaugeValue(registry, 'svc_db_pool_waiting')).toBe(0);
    expect(await gaugeValue(registry, 'svc_db_pool_connections_in_use')).toBe(0);
  });
});
