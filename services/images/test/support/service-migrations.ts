import path from 'node:path';
import type { ServiceMigrations } from '@platform/kit/testing';
import { migrationSource } from '../../src/db/migration-source';

/** What the kit's test databases are migrated with: the images service's migrations. */
export const imagesMigrations: ServiceMigrations = { migrationSource, migrationsDir: path.join(__dirname, '..', '..', 'migrations') };
