import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import type { Services } from '../app';
import { MAX_NAMED_TOKENS } from '../auth/account-service';
import { createCredentialsRepository } from '../auth/credentials-repository';
import { hashToken } from '../auth/tokens';
import { positionals, UsageError } from '../admin/command-args';
import type { ProgressOutput } from '../admin/storage-progress';
import type { Storage } from '../storage/storage';
import { createUsersRepository } from '../users/users-repository';
import { readEasyImageInstall } from './easyimage-source';
import { createImageImport } from './image-import';
import { createImportRecordsRepository } from './import-records-repository';
import { createImportReport, writeRedirectMap } from './import-report';

export const IMPORT_USAGE = 'import-from easyimage <install dir> --user <name> [--redirect-map <file>]';

export interface ImportDeps {
  db: Knex;
  storage: Storage;
  services: Pick<Services, 'uploads' | 'imageUrl'>;
}

/** `import-from <host> ...`: brings another image host's users, tokens and images in (see the README's "Moving in"). */
export async function runImportFrom(args: string[], ctx: ProgressOutput, deps: ImportDeps): Promise<void> {
  const { positionals: values, values: options } = parseArgs({
    args,
    options: { user: { type: 'string' }, 'redirect-map': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [host] = values;
  if (host === 'easyimage') {
    const [, installDir] = positionals(values, 2, IMPORT_USAGE);
    if (!options.user) throw new UsageError(`usage: ${IMPORT_USAGE}`);
    await importEasyImage(path.resolve(installDir!), options.user, path.resolve(options['redirect-map'] ?? 'easyimage-redirects.map'), ctx, deps);
    return;
  }
  throw new UsageError(`usage: ${IMPORT_USAGE}`);
}

async function importEasyImage(installDir: string, userName: string, mapFile: string, ctx: ProgressOutput, deps: ImportDeps): Promise<void> {
  const source = `easyimage:${installDir}`;
  const install = await readEasyImageInstall(installDir);
  const owner = await createUsersRepository(deps.db).findByName(userName);
  if (!owner) throw new Error(`user ${userName} does not exist: create it first (create-user ${userName})`);
  await deps.storage.prepare();
  const records = createImportRecordsRepository(deps.db);
  const images = createImageImport({ uploads: deps.services.uploads, temp: deps.storage.temp, records });
  const report = createImportReport(ctx, install.tokens.length + install.files.length);
  ctx.err(`importing ${install.files.length} image(s) and ${install.tokens.length} API token(s) from ${installDir} for ${owner.name}`);

  // EasyImage's API tokens become the owner's named tokens: its clients keep uploading, now to /compat/easyimage.
  for (const token of install.tokens) {
    const sourceId = hashToken(token.token);
    const label = `token ${token.id}`;
    if ((await records.findTarget(source, 'token', sourceId)) !== null) report.row('skipped', 'token', label, 'already imported');
    else if (token.expiresAt.getTime() <= Date.now()) report.row('skipped', 'token', label, `expired ${token.expiresAt.toISOString()}`);
    else {
      const created = await deps.db.transaction(async (trx) => {
        const credential = await createCredentialsRepository(trx, { namedStatements: false }).createNamed(owner.id, `EasyImage token ${token.id}`, sourceId, MAX_NAMED_TOKENS);
        if (credential) await createImportRecordsRepository(trx).record(source, 'token', sourceId, credential.id);
        return credential;
      });
      if (created) report.row('imported', 'token', label, `named token ${created.id}`);
      else report.row('failed', 'token', label, `${owner.name} already holds ${MAX_NAMED_TOKENS} named tokens`);
    }
  }

  for (const file of install.files) {
    const result = await images.importImage(source, { sourceId: file.oldPath, oldPath: file.oldPath, file: file.file, originalName: file.originalName, uploadedAt: file.uploadedAt, owner });
    report.row(result.outcome, 'image', file.oldPath, result.outcome === 'imported' ? result.url : result.reason);
  }

  const used = await records.recountUsedBytes(owner.id);
  await writeRedirectMap(mapFile, await records.storedImages(source), deps.services.imageUrl, `EasyImage ${installDir}: old path -> new address (map $uri $imported_image { include ${mapFile}; })`);
  report.finish();
  ctx.out(`used bytes of ${owner.name}: ${used.after}${used.before === used.after ? '' : ` (was ${used.before})`}`);
  ctx.out(`redirect map: ${mapFile}`);
  if (report.counts.failed > 0) {
    throw new Error(`${report.counts.failed} row(s) failed (listed above): fix them and run the same command again; what was imported is skipped`);
  }
}
