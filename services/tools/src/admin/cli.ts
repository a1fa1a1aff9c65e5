import { createLogger, exitWith, runAdminCli, type AdminCli, type Printer } from '@platform/kit';
import { loadConfig, type ToolsConfig } from '../config';
import { openRedis, waitForRedis } from '../ratelimit/redis-connection';
import { createRequestLimiter } from '../ratelimit/request-limiter';
import { memoryKeyVersion, redisKeyVersion } from '../auth/key-version';
import { ADMIN_HELP, runAdminCommand } from './commands';
import { readsStdin } from './editor-commands';
import { migrationSource } from '../db/migration-source';
import { fetcherSettings } from '../outbound/fetcher';

const toolsCli: AdminCli<ToolsConfig> = {
  help: ADMIN_HELP,
  loadConfig,
  migrationSource,
  readsStdin,
  stdinExample: 'echo "$PASSWORD" | … --password-stdin',
  async runCommand(argv, { db, config, print, input }) {
    // The CLI's own logs would mix with its output; only warnings and worse go to stderr.
    const logger = createLogger('tools', config.logLevel === 'silent' ? 'silent' : 'warn');
    const redis = config.redisUrl ? openRedis(config.redisUrl, logger) : undefined;
    try {
      const limiter = redis ? createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, redis, logger }) : undefined;
      if (redis) await waitForRedis(redis, 2000);
      // An embedded database is claimed by this CLI: no running process has cached keys to invalidate.
      const keyVersion = redis ? redisKeyVersion(redis, config.rateLimitKeyPrefix) : config.database.kind === 'postgres' ? undefined : memoryKeyVersion();
      return await runAdminCommand(argv, { db, limiter, keyVersion, defaultRateLimitPerHour: config.defaultRateLimitPerHour, outbound: fetcherSettings(config), iconRefreshDays: config.iconRefreshDays, linkCheckIntervalHours: config.linkCheckIntervalHours, input, ...print });
    } finally {
      redis?.disconnect();
    }
  },
};

/** The tools admin CLI (`npm run admin -w services/tools -- …`): see runAdminCli. */
export function runCli(argv: string[], env: NodeJS.ProcessEnv, print?: Printer, readStdin?: () => Promise<string>): Promise<number> {
  return runAdminCli(toolsCli, argv, env, print, readStdin);
}

if (require.main === module) exitWith(runCli(process.argv.slice(2), process.env));
