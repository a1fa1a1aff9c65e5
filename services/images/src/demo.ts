import type { Knex } from 'knex';
import { createUser } from './users/user-admin';

/** Creates the `demo` user in the default group; returns its token, or null when it already exists. */
export async function ensureDemoUser(db: Knex): Promise<string | null> {
  const created = await createUser(db, { name: 'demo' }).catch((error: unknown) => {
    if (error instanceof Error && error.message === 'user demo already exists') return null;
    throw error;
  });
  return created?.token ?? null;
}
