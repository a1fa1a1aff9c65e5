// The glue both services use. What differs per service (migrations, logger, metrics) is passed in.
export { exitWith, runAdminCli, type AdminCli, type Printer } from './admin/admin-cli';
export { forwardAdminCommand, serveAdminCommands, type AdminRunner } from './admin/admin-socket';
export { DATABASE_URL_FORMAT, databaseTarget, describeDatabase, type DatabaseTarget } from './db/database-target';
export { claimEmbeddedDatabase, type Claim, type EmbeddedOwner } from './db/embedded-owner';
export { createHealthRepository } from './db/health-repository';
export { DEFAULT_POOL_MAX, openDb } from './db/open-db';
export { describeSchema, listedMigrations, migrateToLatest, pendingMigrations, requireMigrated, SchemaBehindError } from './db/migrate';
export { describeConnectionBudget, readConnectionBudget, type ConnectionBudget } from './db/connection-budget';
export { connectsDirectly } from './db/pooler-detection';
export { prepareDatabase } from './db/prepare-database';
export { createAppServer } from './http/app-server';
export { mountOperationalRoutes } from './http/operational-routes';
export { answerClientErrors, rawClientErrorAnswer, type ClientErrorRejection } from './http/client-errors';
export { startService, type ServerSettings, type ServiceMain } from './http/start-service';
export { stopGracefullyOnSignals, type GracefulShutdownOptions } from './http/graceful-shutdown';
export { DEFAULT_TRUSTED_PROXIES, parseTrustedProxies } from './http/trusted-proxies';
export { resolveSecretFiles } from './config/secret-files';
export { createLogger } from './log/logger';
export { observeRequests, queryRedactor, requestLog, type ObserveRequest } from './http/request-observation';
export { registerCapacityMetrics } from './metrics/capacity-metrics';
export { hashPassword, isAcceptablePassword, needsRehash, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from './auth/passwords';
export { knexLimiterStore } from './db/knex-limiter-store';
export { createSignInLimiter, type SignInLimiter, type SignInLimiterOptions, type SignInVerdict } from './auth/sign-in-limiter';
export {
  addConstraint,
  createIndexConcurrently,
  dropIndexConcurrently,
  limitLockWaits,
  lockSafe,
  MIGRATION_LOCK_TIMEOUT_MS,
  setNotNull,
  updateInBatches,
  widenVarchar,
} from './db/online-migration';
export { createJobLease, type JobLease } from './jobs/job-lease';
