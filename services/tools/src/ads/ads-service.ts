import { adsConfigSchema, DISABLED_ADS_CONFIG, type AdsConfig } from './ads-config';
import type { SettingsRepository } from './settings-repository';

export const ADS_SETTING_KEY = 'miniapp_ads';

export function createAdsService(settings: SettingsRepository) {
  return {
    /** The mini-program ad configuration; everything disabled until an operator sets one. */
    async adsConfig(): Promise<AdsConfig> {
      const stored = await settings.get(ADS_SETTING_KEY);
      if (stored === undefined) return DISABLED_ADS_CONFIG;
      const parsed = adsConfigSchema.safeParse(stored);
      // A stored value is validated when set; should it ever not parse, serving "all disabled" is the safe answer.
      return parsed.success ? parsed.data : DISABLED_ADS_CONFIG;
    },

    /** Stores a config (checked by adsConfigSchema first, as the CLI's ads:set does). */
    async saveAdsConfig(config: AdsConfig): Promise<void> {
      await settings.put(ADS_SETTING_KEY, adsConfigSchema.parse(config));
    },
  };
}

export type AdsService = ReturnType<typeof createAdsService>;
