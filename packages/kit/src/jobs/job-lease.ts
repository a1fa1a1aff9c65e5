import type { Knex } from 'knex';

/**
 * A lease row per job in the service's `job_leases` table (name primary key, holder, expires_at):
 * whoever holds an unexpired lease runs the job; the others skip
 * it. A plain row (not an advisory lock) because knex's pool gives no lasting session to hold one on,
 * and a holder that dies simply lets its lease expire.
 */
export function createJobLease(db: Knex, options: { name: string; holder: string; ttlMs: number }) {
  return {
    /** Takes or renews the lease; false when another holder has it. */
    async acquire(): Promise<boolean> {
      const result = await db.raw(
        `INSERT INTO job_leases (name, holder, expires_at) VALUES (?, ?, now() + ? * interval '1 millisecond')
         ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE job_leases.expires_at < now() OR job_leases.holder = EXCLUDED.holder
         RETURNING holder`,
        [options.name, options.holder, options.ttlMs],
      );
      return (result.rows as unknown[]).length > 0;
    },
    async release(): Promise<void> {
      await db('job_leases').where({ name: options.name, holder: options.holder }).delete();
    },
  };
}

export type JobLease = ReturnType<typeof createJobLease>;
