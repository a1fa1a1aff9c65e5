import fs from 'node:fs/promises';
import path from 'node:path';
import { progressBar, type ProgressOutput } from '../progress/progress-output';
import type { ImportDeps } from './import-deps';
import type { ImportedImage, ImportRecordsRepository } from './import-records-repository';

export type ReportOutcome = 'imported' | 'skipped' | 'failed';

/**
 * The per-row report of an import on stdout (`imported|skipped|failed <TAB> kind <TAB> source id <TAB>
 * new id or reason`), with a progress bar: redrawn on a terminal, else a line on stderr per tenth.
 */
export function createImportReport(ctx: ProgressOutput, total: number) {
  const counts: Record<ReportOutcome, number> = { imported: 0, skipped: 0, failed: 0 };
  let done = 0;
  let lastTenth = -1;
  const describe = () => `${progressBar(done, total)}  ${done}/${total} rows${counts.failed > 0 ? `, ${counts.failed} failed` : ''}`;
  return {
    counts,
    row(outcome: ReportOutcome, kind: string, sourceId: string, detail: string): void {
      counts[outcome] += 1;
      done += 1;
      if (ctx.redraw) {
        ctx.redraw('');
        ctx.out([outcome, kind, sourceId, detail].join('\t'));
        ctx.redraw(describe());
        return;
      }
      ctx.out([outcome, kind, sourceId, detail].join('\t'));
      const tenth = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        ctx.err(describe());
      }
    },
    finish(): void {
      ctx.redraw?.('');
      ctx.out(`imported ${counts.imported}, skipped ${counts.skipped}, failed ${counts.failed}`);
    },
  };
}

/** A string as nginx reads it between double quotes. */
const nginxQuoted = (text: string) => `"${text.replace(/[\\"]/g, (character) => `\\${character}`)}"`;

/**
 * An nginx `map` body (for `map $uri $imported_image { include <file>; }`): each old path to its
 * image's address here. Written to a temp file and renamed, so a reader never sees half of it.
 */
export async function writeRedirectMap(file: string, images: ImportedImage[], imageUrl: (storageKey: string) => string, header: string): Promise<void> {
  const lines = [`# ${header}`, ...images.map((image) => `${nginxQuoted(image.oldPath)} ${nginxQuoted(imageUrl(image.storageKey))};`)];
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.partial`);
  await fs.writeFile(partial, `${lines.join('\n')}\n`);
  await fs.rename(partial, file);
}

/**
 * The end of every import: the owners' used bytes recounted from their images, the redirect map
 * rewritten from every image imported from `source` so far, the totals, and a failure when a row failed.
 */
export async function finishImport(
  report: ReturnType<typeof createImportReport>,
  options: { records: ImportRecordsRepository; source: string; owners: number[]; mapFile: string; header: string; deps: Pick<ImportDeps, 'ctx' | 'services'> },
): Promise<void> {
  const { records, deps } = options;
  const recounts = [];
  for (const owner of options.owners) recounts.push(await records.recountUsedBytes(owner));
  await writeRedirectMap(options.mapFile, await records.storedImages(options.source), deps.services.imageUrl, `${options.header}: old path -> new address (map $uri $imported_image { include ${options.mapFile}; })`);
  report.finish();
  for (const { name, before, after } of recounts) deps.ctx.out(`used bytes of ${name}: ${after}${before === after ? '' : ` (was ${before})`}`);
  deps.ctx.out(`redirect map: ${options.mapFile}`);
  if (report.counts.failed > 0) {
    throw new Error(`${report.counts.failed} row(s) failed (listed above): fix them and run the same command again; what was imported is skipped`);
  }
}
