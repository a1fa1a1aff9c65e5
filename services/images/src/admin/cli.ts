import { loadConfig, type ImagesConfig } from '../config';
import { migrateToLatest, openDb } from '../db/open-db';
import { ADMIN_HELP, runAdminCommand } from './commands';

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    process.stdout.write(`${ADMIN_HELP}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  // `npm run admin -w services/images` runs in services/images; resolve relative DATABASE_URL and
  // STORAGE_DIR from where the operator typed the command, as `npm start` at the root does.
  if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
  let config: ImagesConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(`config error: ${(error as Error).message}\n`);
    return 1;
  }
  const db = openDb(config.database);
  try {
    await migrateToLatest(db);
    return await runAdminCommand(argv, {
      db,
      config,
      out: (line) => process.stdout.write(`${line.replace(/\n$/, '')}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
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
