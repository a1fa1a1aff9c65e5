import fs from 'node:fs';
import path from 'node:path';
import { loadConfig, type ImagesConfig } from '../config';
import { describeDatabase } from '../db/database-target';
import { claimEmbeddedDatabase } from '../db/embedded-owner';
import { migrateToLatest, openDb } from '../db/open-db';
import { forwardAdminCommand } from './admin-socket';
import { ADMIN_HELP, runAdminCommand } from './commands';

export interface Printer {
  out(line: string): void;
  err(line: string): void;
}

const stdio: Printer = {
  out: (line) => process.stdout.write(`${line.replace(/\n$/, '')}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * The admin CLI on the database the service would use with the same environment. It says which one
 * on stderr. An embedded database that a running service (or `npm start`) has open is reached
 * through that process; one that does not exist yet is not created.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, print: Printer = stdio): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    print.out(ADMIN_HELP);
    return argv.length === 0 ? 2 : 0;
  }
  // `npm run admin -w services/images` runs in services/images; resolve relative DATABASE_URL and
  // STORAGE_DIR from where the operator typed the command.
  if (env.INIT_CWD) process.chdir(env.INIT_CWD);
  let config: ImagesConfig;
  try {
    config = loadConfig(env);
  } catch (error) {
    print.err(`config error: ${(error as Error).message}`);
    return 1;
  }
  const target = config.database;
  const runHere = async () => {
    const db = await openDb(target);
    try {
      await migrateToLatest(db);
      return await runAdminCommand(argv, { db, config, ...print });
    } finally {
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
    return forwardAdminCommand(claim.owner.adminSocket, argv, print);
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
