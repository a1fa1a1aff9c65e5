import { loadConfig, type ImagesConfig } from '../config';
import { migrateToLatest, openDb } from '../db/open-db';
import { ADMIN_HELP, runAdminCommand } from './commands';

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(ADMIN_HELP);
    return 0;
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
      print: (line) => (line.startsWith('error: ') ? process.stderr : process.stdout).write(`${line.replace(/\n$/, '')}\n`),
    });
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
