import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { describeDatabase, type DatabaseTarget } from '../db/database-target';
import { claimEmbeddedDatabase } from '../db/embedded-owner';
import { describeSchema, migrateToLatest } from '../db/migrate';
import { openDb } from '../db/open-db';
import { forwardAdminCommand } from './admin-socket';

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

/** What a service's admin CLI has of its own; the rest is `runAdminCli`. */
export interface AdminCli<Config extends { database: DatabaseTarget; databasePoolMax: number }> {
  help: string;
  loadConfig(env: NodeJS.ProcessEnv): Config;
  migrationSource: Knex.MigrationSource<unknown>;
  /** Whether the command reads what is piped into it (a password). */
  readsStdin(argv: string[]): boolean;
  /** How to pipe it in, shown to an operator who did not: `echo "$PASSWORD" | …`. */
  stdinExample: string;
  /** Runs a command (any but `migrate`) on the migrated database the CLI opened, which it closes after. */
  runCommand(argv: string[], context: { db: Knex; config: Config; print: Printer; input: string | undefined }): Promise<number>;
}

/** Everything piped into the process. */
async function readProcessStdin(example: string): Promise<string> {
  if (process.stdin.isTTY) throw new Error(`the password is read from stdin: pipe it in (${example})`);
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

/**
 * A service's admin CLI on the database the service would use with the same environment. It says
 * which one on stderr. An embedded database that a running service (or `npm start`) has open is
 * reached through that process; one that does not exist yet is not created. `migrate` applies the
 * migrations and prints the schema; every other command is the service's, after migrating.
 */
export async function runAdminCli<Config extends { database: DatabaseTarget; databasePoolMax: number }>(
  cli: AdminCli<Config>,
  argv: string[],
  env: NodeJS.ProcessEnv,
  print: Printer = stdio,
  readStdin: () => Promise<string> = () => readProcessStdin(cli.stdinExample),
): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    print.out(cli.help);
    return argv.length === 0 ? 2 : 0;
  }
  // `npm run admin -w services/<service>` runs in the service's folder; resolve relative paths
  // (DATABASE_URL, STORAGE_DIR, files to import) from where the operator typed the command.
  if (env.INIT_CWD) process.chdir(env.INIT_CWD);
  let config: Config;
  try {
    config = cli.loadConfig(env);
  } catch (error) {
    print.err(`config error: ${(error as Error).message}`);
    return 1;
  }
  // Read before the command runs, so that a command forwarded to a running service carries it too.
  let input: string | undefined;
  if (cli.readsStdin(argv)) {
    try {
      input = await readStdin();
    } catch (error) {
      print.err(`error: ${(error as Error).message}`);
      return 2;
    }
  }
  const target = config.database;
  const runHere = async () => {
    const db = await openDb(target, { migrationSource: cli.migrationSource, poolMax: config.databasePoolMax });
    try {
      await migrateToLatest(db);
      // The replicas of a deploy run with DATABASE_MIGRATIONS=verify: this is the one run that applies them.
      if (argv[0] === 'migrate') {
        print.out(await describeSchema(db));
        return 0;
      }
      return await cli.runCommand(argv, { db, config, print, input });
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

/** Runs a command-line program's `main` and exits with the status it resolves with (1 and its message if it throws). */
export function exitWith(main: Promise<number>): void {
  main.then(
    (status) => process.exit(status),
    (error: unknown) => {
      process.stderr.write(`error: ${(error as Error)?.message ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
