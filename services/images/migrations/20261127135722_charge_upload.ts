import type { Knex } from 'knex';

/**
 * `charge_upload(owner_id, received_size, stored_size)`: the quota rules of an upload, in one place.
 * It charges `stored_size` bytes to the user and answers 'charged' only when the user exists and is
 * not disabled, the received file is within the group's size limit, and the charge keeps the user's
 * used bytes within the group's quota (exactly at the quota is within). Otherwise it changes nothing
 * and answers why: 'disabled' (or no such user), 'too_large' or 'over_quota'.
 *
 * The charge is one conditional UPDATE: under concurrent uploads Postgres re-checks its condition on
 * the row as the other charge left it, so two uploads can never pass the quota together. The upload's
 * reserve statement (src/images/lifecycle-repository.ts) calls it and inserts the pending row only when
 * it charged. Tested on its own in test/charge-upload.test.ts.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE FUNCTION charge_upload(owner_id bigint, received_size bigint, stored_size bigint) RETURNS text
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      refusal text;
    BEGIN
      UPDATE users AS u SET used_bytes = u.used_bytes + stored_size
      FROM groups AS g
      WHERE u.id = owner_id AND g.id = u.group_id AND u.disabled_at IS NULL
        AND received_size <= g.max_file_size AND u.used_bytes + stored_size <= g.quota_bytes;
      IF FOUND THEN
        RETURN 'charged';
      END IF;
      SELECT CASE WHEN u.disabled_at IS NOT NULL THEN 'disabled' WHEN received_size > g.max_file_size THEN 'too_large' ELSE 'over_quota' END
        INTO refusal
        FROM users AS u JOIN groups AS g ON g.id = u.group_id
        WHERE u.id = owner_id;
      RETURN coalesce(refusal, 'disabled');
    END
    $$`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP FUNCTION IF EXISTS charge_upload(bigint, bigint, bigint)');
}
