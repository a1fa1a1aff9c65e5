import type { Knex } from 'knex';

export function createSettingsRepository(db: Knex) {
  return {
    async get(key: string): Promise<unknown | undefined> {
      const row = await db('app_settings').select('value').where({ key }).first();
      return row?.value;
    },
    async put(key: string, value: unknown): Promise<void> {
      await db('app_settings')
        .insert({ key, value: JSON.stringify(value), updated_at: db.fn.now() })
        .onConflict('key')
        .merge(['value', 'updated_at']);
    },
  };
}

export type SettingsRepository = ReturnType<typeof createSettingsRepository>;
