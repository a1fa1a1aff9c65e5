import crypto from 'node:crypto';
import knex, { type Knex } from 'knex';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * `pglite:memory` by default; with TEST_DATABASE_URL a uniquely named database on that server, because jest
 * runs test files in parallel.
 */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return { url: 'pglite:memory', drop: async () => {} };
  const name = `${prefix}_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin: Knex = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}
