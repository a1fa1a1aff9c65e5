import { loadConfig, type ToolsConfig } from '../config';
import { migrateToLatest, openDb } from '../db/open-db';
import { createLogger } from '../open-service';
import { openRedis, waitForRedis } from '../ratelimit/redis-connection';
import { createRequestLimiter } from '../ratelimit/request-limiter';
import { ADMIN_HELP, runAdminCommand } from './commands';

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    process.stdout.write(`${ADMIN_HELP}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  // `npm run admin -w services/tools` runs in services/tools; resolve a relative DATABASE_URL and import
  // file paths from where the operator typed the command, so that from the repo root the CLI works on
  // the same ./data as `npm start`.
  if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  let config: ToolsConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(`config error: ${(error as Error).message}\n`);
    return 1;
  }
  // The CLI's own logs would mix with its output; only warnings and worse go to stderr.
  const logger = createLogger({ logLevel: config.logLevel === 'silent' ? 'silent' : 'warn' });
  const db = openDb(config.databaseUrl);
  const redis = config.redisUrl ? openRedis(config.redisUrl, logger) : undefined;
  try {
    await migrateToLatest(db);
    const limiter = redis ? createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, redis, logger }) : undefined;
    if (redis) await waitForRedis(redis, 2000);
    return await runAdminCommand(argv, {
      db,
      limiter,
      defaultRateLimitPerHour: config.defaultRateLimitPerHour,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    redis?.disconnect();
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`);
    process.exit(1);
  },
);
