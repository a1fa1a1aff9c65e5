import type { Knex } from 'knex';

/**
 * `credential_live(credential_id, owner_id, at)`: whether credential `credential_id` of user
 * `owner_id` is live at `at` (not expired then, its user not disabled). It is the one definition of
 * a live credential: the lookup by token digest filters on it, and a statement that reads a user's
 * data on a recalled principal gates on it (`WHERE credential_live(…)`), so a reset, revoked,
 * expired or disabled credential reads nothing.
 *
 * PL/pgSQL, so the planner never inlines it: a statement planned for each run's values (a list or
 * search page, whose best plan depends on them) plans a call, not a join of two more tables, and the
 * function's own query keeps its cached plan. STABLE, so it reads in its calling statement's snapshot:
 * the credential is confirmed in the same snapshot as the rows the statement returns.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE FUNCTION credential_live(credential_id bigint, owner_id bigint, at timestamptz) RETURNS boolean
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      RETURN EXISTS (
        SELECT 1 FROM credentials AS c JOIN users AS u ON u.id = c.user_id
        WHERE c.id = credential_id AND c.user_id = owner_id AND u.disabled_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > at)
      );
    END
    $$`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP FUNCTION IF EXISTS credential_live(bigint, bigint, timestamptz)');
}
