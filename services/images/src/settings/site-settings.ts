import { AppError } from '../errors/app-error';
import type { FixedSiteSettings } from '../config';
import { DEFAULT_GROUP } from '../users/user-admin';
import type { UsersRepository } from '../users/users-repository';
import type { SiteSettingsRepository } from './site-settings-repository';

/** The effective site settings: the one place that decides each value. */
export interface SiteSettings {
  /** null: none set, the web app shows its own name. */
  siteName: string | null;
  registrationEnabled: boolean;
  /** The group of new users (registered, or created without a group). */
  defaultGroup: string;
}

export interface SiteSettingsChanges {
  siteName?: string | null;
  registrationEnabled?: boolean;
  defaultGroupId?: number;
}

type SettingKey = keyof SiteSettings;
const ENV_NAMES: Record<SettingKey, string> = { siteName: 'SITE_NAME', registrationEnabled: 'REGISTRATION_ENABLED', defaultGroup: 'REGISTRATION_GROUP' };

/**
 * The site settings, each from one place in this order: its environment variable when set (fixed:
 * edits are refused with `该设置由服务器环境变量决定，不能在此修改`), else what an admin stored, else
 * the default (no site name, registration off, the `default` group). Read on every use, so an
 * admin's change applies at once on every replica. The default group is stored by id, so renaming
 * the group keeps it the default.
 */
export function createSiteSettings(deps: { repository: SiteSettingsRepository; users: UsersRepository; fixed: Readonly<FixedSiteSettings> }) {
  const { repository, users, fixed } = deps;

  async function effective(): Promise<SiteSettings> {
    const stored = await repository.readAll();
    let storedGroup: string | undefined;
    if (fixed.defaultGroup === undefined && stored.default_group_id !== undefined) {
      storedGroup = (await users.findGroupById(Number(stored.default_group_id)))?.name;
    }
    return {
      siteName: fixed.siteName ?? stored.site_name ?? null,
      registrationEnabled: fixed.registrationEnabled ?? stored.registration_enabled === 'true',
      defaultGroup: fixed.defaultGroup ?? storedGroup ?? DEFAULT_GROUP,
    };
  }

  return {
    effective,

    /** The settings with, for each, the environment variable that fixes it (null: admins may edit it). */
    async describe(): Promise<{ values: SiteSettings; fixedBy: Record<SettingKey, string | null> }> {
      const fixedBy = Object.fromEntries(
        (Object.keys(ENV_NAMES) as SettingKey[]).map((key) => [key, fixed[key] === undefined ? null : ENV_NAMES[key]]),
      ) as Record<SettingKey, string | null>;
      return { values: await effective(), fixedBy };
    },

    /** Stores an admin's changes; all or nothing: one fixed setting or unknown group refuses the whole change. */
    async update(changes: SiteSettingsChanges): Promise<void> {
      if (changes.siteName !== undefined && fixed.siteName !== undefined) throw new AppError('settingFixedByEnv', 200);
      if (changes.registrationEnabled !== undefined && fixed.registrationEnabled !== undefined) throw new AppError('settingFixedByEnv', 200);
      if (changes.defaultGroupId !== undefined && fixed.defaultGroup !== undefined) throw new AppError('settingFixedByEnv', 200);
      if (changes.defaultGroupId !== undefined && !(await users.findGroupById(changes.defaultGroupId))) throw new AppError('groupNotFound', 200);
      await repository.write({
        site_name: changes.siteName,
        registration_enabled: changes.registrationEnabled === undefined ? undefined : String(changes.registrationEnabled),
        default_group_id: changes.defaultGroupId === undefined ? undefined : String(changes.defaultGroupId),
      });
    },
  };
}

export type SiteSettingsService = ReturnType<typeof createSiteSettings>;
