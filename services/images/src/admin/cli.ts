import fs from 'node:fs';
import path from 'node:path';
import { claimEmbeddedDatabase, describeDatabase, describeSchema, forwardAdminCommand, migrateToLatest, openDb } from '@platform/kit';
import { loadConfig, type ImagesConfig } from '../config';
import { ADMIN_HELP, readsStdin } from './admin-help';
import { runAdminCommand } from './commands';
import { migrationSource } from '../db/migration-source';

export interface Printer {
  out(line: string): void;
  err(line: string): void;
  /** Redraws the current line (a progress bar); only where that is a terminal. */
  redraw?(text: string): void;
}

const stdio: Printer = {
  out: (line) => process.stdout.write(`${line.replace(/\n$/, '')}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  // An empty text clears the bar, leaving the cursor at the start of the line.
  redraw: process.stderr.isTTY ? (text) => process.stderr.write(`\r\x1b[2K${text}`) : undefined,
};

/** Everything piped into the process (a password for set-password or --password-stdin). */
async function readProcessStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new Error('the password is read from stdin: pipe it in (echo "$PASSWORD" | …)');
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
    const db = await openDb(target, { migrationSource, poolMax: config.databasePoolMax });
    try {
      await migrateToLatest(db);
      // The replicas of a deploy run with DATABASE_MIGRATIONS=verify: this is the one run that applies them.
      if (argv[0] === 'migrate') {
        print.out(await describeSchema(db));
        return 0;
      }
      return await runAdminCommand(argv, { db, config, ...print, input, redraw: print.redraw });
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
