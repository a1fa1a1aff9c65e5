import path from 'node:path';
import type { ServiceMigrations } from '@platform/kit/testing';
import { migrationSource } from '../../src/db/migration-source';

/** What the kit's test databases are migrated with: the tools service's migrations. */
export const toolsMigrations: ServiceMigrations = { migrationSource, migrationsDir: path.join(__dirname, '..', '..', 'migrations') };
