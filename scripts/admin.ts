/**
 * `npm run admin -- <images|tools> <command> …`: a service's admin CLI on exactly the data `npm start`
 * uses with the same environment (DATA_DIR, IMAGES_DATABASE_URL, …). While the platform runs, the
 * command goes through it; it works on a stopped platform too.
 */
import { exitWith } from '@platform/kit';
import { runCli as runImagesCli } from '../services/images/src/admin/cli';
import { runCli as runToolsCli } from '../services/tools/src/admin/cli';
import { embeddedEnvironment } from './lib/embedded-env';
import { readInstallSecrets } from './lib/install-secrets';

const USAGE = `Usage: npm run admin -- <images|tools> <command> [options]
       npm run admin -- images --help
       npm run admin -- tools --help

Runs on the data of \`npm start\` (DATA_DIR, default ./data), also while it runs.`;

async function main(argv: string[]): Promise<number> {
  const [service, ...rest] = argv;
  if (service !== 'images' && service !== 'tools') {
    process.stderr.write(`${service === undefined || service === '--help' || service === '-h' ? '' : `error: unknown service "${service}"\n`}${USAGE}\n`);
    return service === '--help' || service === '-h' ? 0 : 2;
  }
  let env;
  try {
    env = embeddedEnvironment(process.env);
  } catch (error) {
    process.stderr.write(`config error: ${(error as Error).message}\n`);
    return 1;
  }
  // What the command writes in the data folder (images moved back from a bucket, the database's files) is
  // its user's alone, as under npm start.
  process.umask(0o077);
  // The platform's own keys (npm start made them), so that a token the CLI seals can be shown in the account area.
  return service === 'images' ? runImagesCli(rest, { ...env.images, ...readInstallSecrets(env.dataDir, env.images) }) : runToolsCli(rest, env.tools);
}

exitWith(main(process.argv.slice(2)));
