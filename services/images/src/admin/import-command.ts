import path from 'node:path';
import { parseArgs } from 'node:util';
import { importEasyImage } from '../import/easyimage-import';
import type { ImportDeps } from '../import/import-deps';
import { importLsky } from '../import/lsky-import';
import { positionals, UsageError } from './command-args';

export const IMPORT_USAGE = 'import-from easyimage <install dir> --user <name> [--redirect-map <file>] | import-from lsky <database.sqlite|dump.sql> <storage dir> [--time-zone <zone>] [--redirect-map <file>]';

/** `import-from <host> ...`: brings another image host's data in (see the README's "Moving in"). */
export async function runImportFrom(args: string[], deps: ImportDeps): Promise<void> {
  const { positionals: values, values: options } = parseArgs({
    args,
    options: { user: { type: 'string' }, 'redirect-map': { type: 'string' }, 'time-zone': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [host] = values;
  const mapFile = (fallback: string) => path.resolve(options['redirect-map'] ?? fallback);
  if (host === 'easyimage') {
    const [, installDir] = positionals(values, 2, IMPORT_USAGE);
    if (!options.user || options['time-zone'] !== undefined) throw new UsageError(`usage: ${IMPORT_USAGE}`);
    await importEasyImage(path.resolve(installDir!), options.user, mapFile('easyimage-redirects.map'), deps);
    return;
  }
  if (host === 'lsky') {
    const [, databaseFile, storageDir] = positionals(values, 3, IMPORT_USAGE);
    if (options.user !== undefined) throw new UsageError(`usage: ${IMPORT_USAGE}`);
    const timeZone = options['time-zone'] ?? 'Asia/Shanghai';
    if (!isTimeZone(timeZone)) throw new UsageError(`unknown time zone ${timeZone} (an IANA name such as Asia/Shanghai, Lsky's APP_TIMEZONE)`);
    await importLsky(path.resolve(databaseFile!), path.resolve(storageDir!), mapFile('lsky-redirects.map'), timeZone, deps);
    return;
  }
  throw new UsageError(`usage: ${IMPORT_USAGE}`);
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
