import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * `users.uploads_banned_at`: when an admin banned the user's uploads (null: not banned). The user can
 * still sign in, list and delete; uploads are refused. A nullable column without a default: a catalog
 * change only, no table rewrite.
 *
 * `site_settings`: the settings admins edit in the web app (site name, registration on/off, the group
 * of new users), one row per setting; an environment variable, when set, wins over its row
 * (src/users/site-settings.ts). A new table: nothing else waits on it.
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.raw('ALTER TABLE users ADD COLUMN uploads_banned_at timestamptz');
  await db.raw(`CREATE TABLE site_settings (
    name text PRIMARY KEY,
    value text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`);
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.raw('DROP TABLE site_settings');
  await db.raw('ALTER TABLE users DROP COLUMN uploads_banned_at');
}
