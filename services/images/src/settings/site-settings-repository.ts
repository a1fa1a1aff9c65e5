import type { Knex } from 'knex';

/** The names of the stored site settings (site_settings.name). */
export type StoredSettingName = 'site_name' | 'registration_enabled' | 'default_group_id';

/** The rows of site_settings: what admins stored, by name. */
export function createSiteSettingsRepository(db: Knex) {
  return {
    async readAll(): Promise<Partial<Record<StoredSettingName, string>>> {
      const rows: Array<{ name: StoredSettingName; value: string }> = await db('site_settings').select('name', 'value');
      return Object.fromEntries(rows.map((row) => [row.name, row.value]));
    },

    /** Stores the given values in one transaction (null: back to the default). */
    async write(values: Partial<Record<StoredSettingName, string | null>>): Promise<void> {
      await db.transaction(async (trx) => {
        for (const [name, value] of Object.entries(values)) {
          if (value === undefined) continue;
          if (value === null) await trx('site_settings').where({ name }).delete();
          else await trx('site_settings').insert({ name, value, updated_at: trx.fn.now() }).onConflict('name').merge(['value', 'updated_at']);
        }
      });
    },
  };
}

export type SiteSettingsRepository = ReturnType<typeof createSiteSettingsRepository>;
