// Test support for both services' suites (`@platform/kit/testing`); nothing in a service's src imports it.
export { loadOpenApi, type CheckedResponse, type OpenApiDocument, type OpenApiValidator, type SpecTarget } from './openapi-validator';
export { serviceProcesses, stopMain, type MainProcess } from './processes';
export { describeWithRealServer } from './real-services';
export { rawExchange, type RawAnswer } from './raw-http';
export { checkMigrationRules, describeViolations, expectOnlineSafeMigrations, type MigrationViolation } from './migration-rules';
export { CURRENT_PGBOUNCER_BINARY, PGBOUNCER_BINARY, startPgBouncer, type PgBouncerOptions, type RunningPgBouncer } from './pgbouncer';
export { createTestDatabase, openTestDatabase, prepareTemplate, type ServiceMigrations, type TestDatabase } from './test-database';
export { CHROMIUM_PATH, describeWithChromium, launchChromium, seriousAxeViolations, type AxeViolation } from './browser';
