import fs from 'node:fs';
import path from 'node:path';
import { claimEmbeddedDatabase, createLogger, describeDatabase, describeSchema, forwardAdminCommand, migrateToLatest, openDb } from '@platform/kit';
import { loadConfig, type ToolsConfig } from '../config';
import { openRedis, waitForRedis } from '../ratelimit/redis-connection';
import { createRequestLimiter } from '../ratelimit/request-limiter';
import { memoryKeyVersion, redisKeyVersion } from '../auth/key-version';
import { ADMIN_HELP, runAdminCommand } from './commands';
import { readsStdin } from './editor-commands';
import { migrationSource } from '../db/migration-source';
import { fetcherSettings } from '../outbound/fetcher';

export interface Printer {
  out(line: string): void;
  err(line: string): void;
}

const stdio: Printer = {
  out: (line) => process.stdout.write(`${line.replace(/\n$/, '')}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Everything piped into the process (an editor's password with --password-stdin). */
async function readProcessStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new Error('the password is read from stdin: pipe it in (echo "$PASSWORD" | … --password-stdin)');
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

/**
 * The admin CLI on the database the service would use with the same environment. It says which one
 * on stderr. An embedded database that a running service (or `npm start`) has open is reached
 * through that process; one that does not exist yet is not created.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, print: Printer = stdio, readStdin: () => Promise<string> = readProcessStdin): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    print.out(ADMIN_HELP);
    return argv.length === 0 ? 2 : 0;
  }
  // `npm run admin -w services/tools` runs in services/tools; resolve a relative DATABASE_URL and
  // import file paths from where the operator typed the command.
  if (env.INIT_CWD) process.chdir(env.INIT_CWD);
  let config: ToolsConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    print.err(`config error: ${(error as Error).message}`);
    return 1;
  }
  // Read before the command runs, so that a command forwarded to a running service carries it too.
  let input: string | undefined;
  if (readsStdin(argv)) {
    try {
      input = await readStdin();
    } catch (error) {
      print.err(`error: ${(error as Error).message}`);
      return 2;
    }
  }
  const target = config.database;
  const runHere = async () => {
    // The CLI's own logs would mix with its output; only warnings and worse go to stderr.
    const logger = createLogger('tools', config.logLevel === 'silent' ? 'silent' : 'warn');
    const db = await openDb(target, { migrationSource, poolMax: config.databasePoolMax });
    const redis = config.redisUrl ? openRedis(config.redisUrl, logger) : undefined;
    try {
      await migrateToLatest(db);
      // The replicas of a deploy run with DATABASE_MIGRATIONS=verify: this is the one run that applies them.
      if (argv[0] === 'migrate') {
        print.out(await describeSchema(db));
        return 0;
      }
      const limiter = redis ? createRequestLimiter({ keyPrefix: config.rateLimitKeyPrefix, redis, logger }) : undefined;
      if (redis) await waitForRedis(redis, 2000);
      // An embedded database is claimed by this CLI: no running process has cached keys to invalidate.
      const keyVersion = redis ? redisKeyVersion(redis, config.rateLimitKeyPrefix) : target.kind === 'postgres' ? undefined : memoryKeyVersion();
      return await runAdminCommand(argv, { db, limiter, keyVersion, defaultRateLimitPerHour: config.defaultRateLimitPerHour, outbound: fetcherSettings(config), iconRefreshDays: config.iconRefreshDays, linkCheckIntervalHours: config.linkCheckIntervalHours, input, ...print });
    } finally {
      redis?.disconnect();
      await db.destroy();
    }
  };
  if (target.kind !== 'pglite-dir') {
    print.err(`database: ${describeDatabase(target)}`);
    return runHere();
  }
  if (!fs.existsSync(path.join(target.dir, 'PG_VERSION'))) {
    print.err(`error: no database at ${target.dir}: start the service (or npm start) once to create it, or set DATABASE_URL to the one you mean`);
    return 1;
  }
  const claim = claimEmbeddedDatabase(target.dir);
  if (!claim.claimed) {
    print.err(`database: ${describeDatabase(target)}, through the running process ${claim.owner.pid}`);
    return forwardAdminCommand(claim.owner.adminSocket, argv, print, input);
  }
  try {
    print.err(`database: ${describeDatabase(target)}`);
    return await runHere();
  } finally {
    claim.release();
  }
}

if (require.main === module) {
  runCli(process.argv.slice(2), process.env).then(
    (status) => process.exit(status),
    (error: unknown) => {
      process.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
