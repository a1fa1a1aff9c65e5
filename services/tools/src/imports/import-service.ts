import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createCatalogRepository } from '../catalog/catalog-repository';
import { detectFormat, IMPORT_FORMATS, ImportFormatError, readImportSource, runImport, type ImportFormat } from '../catalog/importer';
import type { ParsedSource } from '../catalog/import-sources';
import { catalogMessage, type CatalogMessage } from '../catalog/catalog-messages';
import { createImportRunsRepository, type ImportRun } from './import-runs-repository';

/** Why a file was refused as a whole: the admin words it in the editor's language. */
export type ImportRefusal = { reason: 'emptyFile' } | { reason: 'unknownFormat' } | { reason: 'unreadable'; format: string; error: CatalogMessage };

/** A file refused as a whole before anything is stored. */
export class ImportRefused extends Error {
  constructor(readonly refusal: ImportRefusal) {
    super(`import refused: ${refusal.reason}`);
  }
}

/** A run that has not moved for this long was cut off (its process stopped): shown as failed. */
const STALLED_AFTER_MS = 120_000;
const KEEP_RUNS_DAYS = 7;

/**
 * Imports from the admin: a dry run first (its per-row report), then applying the same file. Both run in the
 * background of the process that got the request, record their progress in `import_runs` (so the progress
 * page works on any replica) and share the CLI's importer (catalog/importer.ts).
 */
export function createImportService(deps: { db: Knex; changed: () => void | Promise<void>; logger: Logger; now?: () => Date }) {
  const runs = createImportRunsRepository(deps.db);
  const catalog = createCatalogRepository(deps.db);
  const now = deps.now ?? (() => new Date());
  const inFlight = new Set<Promise<void>>();

  async function read(fileName: string, data: Buffer, chosen: string | undefined): Promise<{ format: ImportFormat; source: ParsedSource }> {
    if (data.length === 0) throw new ImportRefused({ reason: 'emptyFile' });
    const format = chosen && IMPORT_FORMATS.includes(chosen as ImportFormat) ? (chosen as ImportFormat) : detectFormat(fileName, data);
    if (!format) throw new ImportRefused({ reason: 'unknownFormat' });
    try {
      return { format, source: await readImportSource(data, format) };
    } catch (error) {
      if (error instanceof ImportFormatError) throw new ImportRefused({ reason: 'unreadable', format: format.toUpperCase(), error: error.reason });
      throw error;
    }
  }

  function launch(runId: number, source: ParsedSource, dryRun: boolean): void {
    const job = (async () => {
      try {
        const report = await runImport(catalog, source, { dryRun, onProgress: (done) => runs.progress(runId, done) });
        await runs.finish(runId, { report, keepFile: dryRun });
      } catch (error) {
        deps.logger.error({ err: error, importRun: runId }, 'import failed');
        await runs.finish(runId, { error: (error as Error).message }).catch(() => undefined);
      } finally {
        if (!dryRun) await deps.changed();
      }
    })();
    inFlight.add(job);
    void job.finally(() => inFlight.delete(job));
  }

  return {
    /** Reads the file (refusing it whole if it cannot be read), stores it and starts its dry run; the run's id. */
    async startDryRun(upload: { fileName: string; data: Buffer; format?: string; editorId: number | null }): Promise<number> {
      const { format, source } = await read(upload.fileName, upload.data, upload.format);
      await runs.removeOlderThan(KEEP_RUNS_DAYS);
      const totalRows = source.categories.length + source.tools.length;
      const runId = await runs.create({ editorId: upload.editorId, fileName: upload.fileName.slice(0, 200), format, file: upload.data, dryRun: true, totalRows });
      launch(runId, source, true);
      return runId;
    },

    /** Applies finished dry run `dryRunId` (once; a second request gets the same run); undefined if there is none. */
    async apply(dryRunId: number, editorId: number | null): Promise<number | undefined> {
      const dryRun = await runs.findWithoutReport(dryRunId);
      if (!dryRun || !dryRun.dry_run) return undefined;
      const file = await runs.fileOf(dryRunId);
      const claimed = await runs.claimApply(dryRunId, editorId);
      if (!claimed) return undefined;
      if (claimed.started) {
        const { source } = await read(dryRun.file_name, file!, dryRun.format);
        launch(claimed.runId, source, false);
      }
      return claimed.runId;
    },

    async find(id: number): Promise<ImportRun | undefined> {
      const run = await runs.find(id);
      if (run?.state === 'running' && now().getTime() - new Date(run.updated_at).getTime() > STALLED_AFTER_MS) {
        return { ...run, state: 'failed', error: catalogMessage('importInterrupted') };
      }
      return run;
    },

    recent: () => runs.recent(20),

    /** Waits for the imports this process runs (tests, and a graceful stop). */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

export type ImportService = ReturnType<typeof createImportService>;
