import type { Knex } from 'knex';

export function createHealthRepository(db: Knex) {
  return {
    /** True when the database answers a trivial query. */
    async databaseAnswers(): Promise<boolean> {
      try {
        await db.raw('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
  };
}
