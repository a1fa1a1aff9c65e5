import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { describeConnectionBudget, readConnectionBudget } from './connection-budget';
import { migrateToLatest, requireMigrated } from './migrate';

/**
 * What a service does with its database before it serves: apply the migrations (embedded, `npm start`,
 * tests) or, for replicas of a deploy whose migrations ran once beforehand (DATABASE_MIGRATIONS=verify),
 * refuse an older schema; then log its connection budget.
 */
export async function prepareDatabase(db: Knex, options: { service: string; migrations: 'apply' | 'verify'; poolMax: number; logger: Logger }): Promise<void> {
  if (options.migrations === 'verify') await requireMigrated(db, options.service);
  else await migrateToLatest(db, { onRetry: (error) => options.logger.info({ reason: error.message }, 'migrations: waiting for another process or a busy lock, trying again') });
  const budget = await readConnectionBudget(db, options.poolMax);
  if (db.client.config.client === 'pg') options.logger.info({ connectionBudget: budget }, describeConnectionBudget(budget));
}
