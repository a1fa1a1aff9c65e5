import type { Knex } from 'knex';

/**
 * A tool whose address changes (an editor, an import, a hand-written UPDATE) has its icon fetched again at
 * the icon job's next run instead of after its refresh period: the stored icon is due now, its failures
 * forgotten. (The admin also starts that fetch at once.) CREATE TRIGGER takes a short lock on `tools`,
 * bounded by lock_timeout so a long transaction makes the migration fail and retry rather than queue
 * the site's reads behind it.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw("SET LOCAL lock_timeout = '5s'");
  await db.raw(`CREATE FUNCTION tool_icon_due_on_url_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE tool_icons SET next_try_at = now(), failures = 0 WHERE tool_id = NEW.id AND NOT override_file;
      RETURN NULL;
    END
  $$`);
  await db.raw(`CREATE TRIGGER tools_icon_due_on_url_change AFTER UPDATE OF url ON tools
    FOR EACH ROW WHEN (OLD.url IS DISTINCT FROM NEW.url) EXECUTE FUNCTION tool_icon_due_on_url_change()`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw("SET LOCAL lock_timeout = '5s'");
  await db.raw('DROP TRIGGER IF EXISTS tools_icon_due_on_url_change ON tools');
  await db.raw('DROP FUNCTION IF EXISTS tool_icon_due_on_url_change()');
}
