import type { Knex } from 'knex';

/**
 * rate-limiter-flexible's Postgres store, on a service's own database (embedded PGlite too): its
 * queries, written for node-postgres (`$1` placeholders), run through knex. The table comes from the
 * service's migration; its expired rows are removed by its housekeeping, not by a timer of the library's.
 */
export function knexLimiterStore(db: Knex) {
  return {
    async query(query: { text: string; values?: unknown[] }) {
      const values = query.values ?? [];
      const bindings: unknown[] = [];
      const sql = query.text.replace(/\$(\d+)/g, (_, index: string) => {
        bindings.push(values[Number(index) - 1]);
        return '?';
      });
      const result = (await db.raw(sql, bindings as Knex.RawBinding[])) as { rows: unknown[]; rowCount?: number | null; affectedRows?: number };
      // Through knex-pglite, rowCount is PGlite's affectedRows, which is 0 for a SELECT that found rows.
      const rowCount = result.rows.length > 0 ? result.rows.length : (result.rowCount ?? result.affectedRows ?? 0);
      return { rows: result.rows, rowCount };
    },
  };
}
