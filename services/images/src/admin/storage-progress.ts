import type { MigrationProgress, StorageMigration } from '../images/storage-migration';
import { progressBar, type ProgressOutput } from '../progress/progress-output';

const MIB = 1024 * 1024;

/** `[#####-----]  50%  5/10 images  1.2 MiB`: the progress of a storage migration. */
export function describeProgress(progress: MigrationProgress, width = 30): string {
  const failed = progress.failed > 0 ? `, ${progress.failed} failed` : '';
  return `${progressBar(progress.done, progress.total, width)}  ${progress.done}/${progress.total} images  ${(progress.bytes / MIB).toFixed(1)} MiB${failed}`;
}

/** Runs storage:migrate, drawing its progress, and fails while any image is left on the old backend. */
export async function migrateStorage(migration: StorageMigration, to: 'local' | 's3', ctx: ProgressOutput, concurrency?: number): Promise<void> {
  let lastTenth = -1;
  const report = await migration.migrate(
    to,
    (progress) => {
    if (ctx.redraw) {
      ctx.redraw(describeProgress(progress));
      return;
    }
    // Without a terminal (a log, a pipe, the running service's socket): a line per tenth.
    const tenth = progress.total === 0 ? 10 : Math.floor((progress.done / progress.total) * 10);
    if (tenth !== lastTenth) {
      lastTenth = tenth;
      ctx.out(describeProgress(progress));
    }
    },
    { concurrency },
  );
  ctx.redraw?.('');
  if (report.leftoversRemoved > 0) ctx.out(`removed the old copies of ${report.leftoversRemoved} image(s) an interrupted run had moved`);
  ctx.out(`moved ${report.moved} image(s) to ${to} (${(report.bytes / MIB).toFixed(1)} MiB, each object read back and compared)`);
  for (const failure of report.failures) ctx.err(`image ${failure.imageId}: ${failure.reason}`);
  if (report.remaining > 0) {
    throw new Error(`${report.remaining} image(s) are still on ${to === 's3' ? 'local' : 's3'} (${report.failed} failed, the others were mid-step): run storage:migrate --to ${to} again`);
  }
  ctx.out(`every image is on ${to}`);
}
