import type { Knex } from 'knex';
import { limitLockWaits } from '@platform/kit';

/**
 * Accounts: a user signs in with a name and password (scrypt hash) and holds credentials, each
 * accepted in the X-API-Token header: one account token (shown in the account area, so kept
 * encrypted as well as digested), named tokens (one per client, digest only, shown once) and
 * sessions (from sign-in, with an expiry). Admin users manage users and groups. A disabled user's
 * credentials all stop at once. Sign-in attempts are counted in sign_in_limits (the table
 * rate-limiter-flexible's Postgres store uses).
 */
export async function up(db: Knex): Promise<void> {
  // Quick catalog changes in the migration's transaction: a busy lock makes it give up and run again.
  await limitLockWaits(db);
  await db.schema.alterTable('users', (t) => {
    t.text('password_hash').nullable();
    t.boolean('is_admin').notNullable().defaultTo(false);
    t.timestamp('disabled_at', { useTz: true }).nullable();
  });

  await db.schema.createTable('credentials', (t) => {
    t.bigIncrements('id').primary();
    t.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('kind', 16).notNullable();
    t.string('name', 64).nullable();
    t.specificType('token_hash', 'char(64)').notNullable().unique();
    t.text('token_ciphertext').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.timestamp('expires_at', { useTz: true }).nullable();
  });
  await db.raw("ALTER TABLE credentials ADD CONSTRAINT credentials_kind_known CHECK (kind IN ('account', 'named', 'session'))");
  await db.raw("ALTER TABLE credentials ADD CONSTRAINT credentials_session_expires CHECK ((kind = 'session') = (expires_at IS NOT NULL))");
  await db.raw("CREATE UNIQUE INDEX credentials_one_account_token ON credentials (user_id) WHERE kind = 'account'");
  await db.raw('CREATE INDEX credentials_user_kind ON credentials (user_id, kind)');
  await db.raw("CREATE INDEX credentials_session_expiry ON credentials (expires_at) WHERE kind = 'session'");
  // Existing tokens become account tokens; they were stored as digests only, so they cannot be shown
  // (the account area offers a reset, which makes one that can).
  await db.raw("INSERT INTO credentials (user_id, kind, token_hash, created_at) SELECT id, 'account', token_hash, created_at FROM users");
  await db.schema.alterTable('users', (t) => t.dropColumn('token_hash'));

  await db.schema.createTable('sign_in_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await limitLockWaits(db);
  await db.schema.dropTableIfExists('sign_in_limits');
  await db.schema.alterTable('users', (t) => t.specificType('token_hash', 'char(64)').nullable());
  await db.raw("UPDATE users SET token_hash = c.token_hash FROM credentials c WHERE c.user_id = users.id AND c.kind = 'account'");
  // A user without an account token gets an unusable digest: the old schema requires one.
  await db.raw("UPDATE users SET token_hash = md5(random()::text) || md5(random()::text) WHERE token_hash IS NULL");
  await db.raw('ALTER TABLE users ALTER COLUMN token_hash SET NOT NULL');
  await db.raw('ALTER TABLE users ADD CONSTRAINT users_token_hash_unique UNIQUE (token_hash)');
  await db.schema.dropTableIfExists('credentials');
  await db.schema.alterTable('users', (t) => {
    t.dropColumn('password_hash');
    t.dropColumn('is_admin');
    t.dropColumn('disabled_at');
  });
}
