import { parseArgs } from 'node:util';
import { adsConfigSchema, DISABLED_ADS_CONFIG } from '../ads/ads-config';
import { createSettingsRepository } from '../ads/settings-repository';
import { ADS_SETTING_KEY } from '../ads/ads-service';
import { readFile, CommandError, UsageError, type AdminContext } from './command-context';

export const isAdsCommand = (command: string | undefined) => command?.startsWith('ads:') === true;

/** ads:set and ads:show; returns the exit status. */
export async function runAdsCommand(command: string, rest: string[], ctx: AdminContext): Promise<number> {
  switch (command) {
  case 'ads:set': {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
    const text = readFile(positionals[0]);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new CommandError(`not valid JSON: ${(error as Error).message}`);
    }
    const parsed = adsConfigSchema.safeParse(document);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CommandError(`invalid ads config at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
    }
    await createSettingsRepository(ctx.db).put(ADS_SETTING_KEY, parsed.data);
    ctx.out('ads config stored');
    return 0;
  }
  case 'ads:show': {
    const stored = await createSettingsRepository(ctx.db).get(ADS_SETTING_KEY);
    ctx.out(JSON.stringify(stored ?? DISABLED_ADS_CONFIG, null, 2));
    if (stored === undefined) ctx.out('(not set: everything disabled)');
    return 0;
  }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
