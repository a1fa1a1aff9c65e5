import { z } from 'zod';

/** The mini-program ad configuration, as served by `action=miniapp&type=ads` and set by the admin CLI. */
export const adsConfigSchema = z
  .object({
    banner: z
      .object({ unit_id: z.string().max(200), enabled: z.boolean(), position: z.enum(['top', 'bottom']) })
      .strict(),
    interstitial: z
      .object({ unit_id: z.string().max(200), enabled: z.boolean(), interval: z.number().int().min(0).max(86400) })
      .strict(),
    rewarded: z.object({ unit_id: z.string().max(200), enabled: z.boolean() }).strict(),
    native: z.object({ unit_id: z.string().max(200), enabled: z.boolean() }).strict(),
    unlock: z
      .object({
        enabled: z.boolean(),
        /** Features a user unlocks by watching a rewarded ad. */
        features: z.array(z.string().min(1).max(100)).max(50),
        /** How long an unlock lasts. */
        duration_minutes: z.number().int().min(1).max(525600),
      })
      .strict(),
  })
  .strict();

export type AdsConfig = z.infer<typeof adsConfigSchema>;

/** Until an operator sets the config, every ad is off. */
export const DISABLED_ADS_CONFIG: AdsConfig = Object.freeze({
  banner: { unit_id: '', enabled: false, position: 'bottom' },
  interstitial: { unit_id: '', enabled: false, interval: 60 },
  rewarded: { unit_id: '', enabled: false },
  native: { unit_id: '', enabled: false },
  unlock: { enabled: false, features: [], duration_minutes: 60 },
}) as AdsConfig;
