import { MAX_NAMED_TOKENS } from '../auth/account-service';
import { createCredentialsRepository } from '../auth/credentials-repository';
import { hashToken } from '../auth/tokens';
import { createUsersRepository } from '../users/users-repository';
import { readEasyImageInstall } from './easyimage-source';
import { createImageImport } from './image-import';
import type { ImportDeps } from './import-deps';
import { createImportRecordsRepository } from './import-records-repository';
import { createImportReport, finishImport } from './import-report';

/** EasyImage 2.x: its API tokens as the owner's named tokens, then every uploaded file as the owner's image. */
export async function importEasyImage(installDir: string, userName: string, mapFile: string, deps: ImportDeps): Promise<void> {
  const { ctx } = deps;
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

  await finishImport(report, { records, source, owners: [owner.id], mapFile, header: `EasyImage ${installDir}`, deps });
}
