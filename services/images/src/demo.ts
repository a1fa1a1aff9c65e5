import { UserAdminError, type UserAdmin } from './users/user-admin';

/** Creates the `demo` user in the default group; returns its token, or null when it already exists. */
export async function ensureDemoUser(userAdmin: UserAdmin): Promise<string | null> {
  const created = await userAdmin.createUser({ name: 'demo' }).catch((error: unknown) => {
    if (error instanceof UserAdminError && error.failure === 'name-taken') return null;
    throw error;
  });
  return created?.token ?? null;
}
