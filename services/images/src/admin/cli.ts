import { exitWith, runAdminCli, type AdminCli, type Printer } from '@platform/kit';
import { loadConfig, type ImagesConfig } from '../config';
import { ADMIN_HELP, readsStdin } from './admin-help';
import { runAdminCommand } from './commands';
import { migrationSource } from '../db/migration-source';

const imagesCli: AdminCli<ImagesConfig> = {
  help: ADMIN_HELP,
  loadConfig,
  migrationSource,
  readsStdin,
  stdinExample: 'echo "$PASSWORD" | …',
  runCommand: (argv, { db, config, print, input }) => runAdminCommand(argv, { db, config, ...print, input, redraw: print.redraw }),
};

/** The images admin CLI (`npm run admin -w services/images -- …`): see runAdminCli. */
export function runCli(argv: string[], env: NodeJS.ProcessEnv, print?: Printer, readStdin?: () => Promise<string>): Promise<number> {
  return runAdminCli(imagesCli, argv, env, print, readStdin);
}

if (require.main === module) exitWith(runCli(process.argv.slice(2), process.env));
