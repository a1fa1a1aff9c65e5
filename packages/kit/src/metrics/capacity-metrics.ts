import type { Knex } from 'knex';
import { Gauge, type Registry } from 'prom-client';

/** What a knex pool (tarn) tells about itself; PGlite's single connection has none of it. */
interface PoolView {
  numUsed(): number;
  numPendingAcquires(): number;
  max: number;
}

function poolOf(db: Knex): PoolView | undefined {
  const pool = (db.client as { pool?: Partial<PoolView> }).pool;
  return pool && typeof pool.numUsed === 'function' && typeof pool.numPendingAcquires === 'function' ? (pool as PoolView) : undefined;
}

/** Registers `name` in the registry, replacing one a previous app on the same registry registered. */
function gauge(registry: Registry, name: string, help: string, collect?: (this: Gauge) => void): Gauge {
  registry.removeSingleMetric(name);
  return new Gauge({ name, help, registers: [registry], ...(collect ? { collect } : {}) });
}

/**
 * The load signals an autoscaler reads from a replica's /metrics, beside CPU: requests in flight, and the
 * database pool's connections in use and requests waiting for one (a pool at its size with callers
 * waiting is a replica that more replicas, or a larger pool, would help; docs/scaling.md). Returns the
 * in-flight gauge for observeRequests to count with.
 */
export function registerCapacityMetrics(registry: Registry, prefix: string, db: Knex): { inFlight: Gauge } {
  const inFlight = gauge(registry, `${prefix}_http_requests_in_flight`, 'Requests received by this replica and not yet answered or abandoned');
  gauge(registry, `${prefix}_db_pool_connections_in_use`, 'Database connections this replica holds for a query or transaction now', function collect() {
    this.set(poolOf(db)?.numUsed() ?? 0);
  });
  gauge(registry, `${prefix}_db_pool_waiting`, 'Queries and transactions of this replica waiting for a free database connection', function collect() {
    this.set(poolOf(db)?.numPendingAcquires() ?? 0);
  });
  gauge(registry, `${prefix}_db_pool_max`, "This replica's database pool size (DATABASE_POOL_MAX; 1 for the embedded database)", function collect() {
    this.set(poolOf(db)?.max ?? 1);
  });
  return { inFlight };
}
