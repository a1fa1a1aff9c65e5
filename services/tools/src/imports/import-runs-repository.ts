import type { Knex } from 'knex';
import type { CatalogMessage } from '../catalog/catalog-messages';
import type { ImportFormat, ImportReport } from '../catalog/importer';

export type ImportRunState = 'running' | 'done' | 'failed';

export interface ImportRun {
  id: number;
  editor_id: number | null;
  file_name: string;
  format: ImportFormat;
  dry_run: boolean;
  state: ImportRunState;
  done_rows: number;
  total_rows: number;
  report: ImportReport | null;
  /** The failure as stored (an unexpected error's text), or a catalog message (an interrupted run). */
  error: string | CatalogMessage | null;
  applied_run_id: number | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'editor_id', 'file_name', 'format', 'dry_run', 'state', 'done_rows', 'total_rows', 'report', 'error', 'applied_run_id', 'created_at', 'updated_at'];

const toRun = (row: ImportRun & { id: number | string; applied_run_id: number | string | null }): ImportRun => ({
  ...row,
  id: Number(row.id),
  applied_run_id: row.applied_run_id === null ? null : Number(row.applied_run_id),
});

/*
 * The uploaded file crosses the database connection as base64 text, turned into and out of the bytea column by
 * the database (decode/encode). As a bytea parameter or result it would be hex-encoded and decoded in
 * JavaScript a byte at a time: with PGlite, on the thread that serves the site, a 1 MB file held every page
 * for most of a second, twice per import (the upload, the apply). Buffer's base64 is native and fast.
 */
const fileIn = (db: Knex, file: Buffer) => db.raw(`decode(?, 'base64')`, [file.toString('base64')]);

export function createImportRunsRepository(db: Knex) {
  return {
    async create(run: { editorId: number | null; fileName: string; format: ImportFormat; file: Buffer; dryRun: boolean; totalRows: number }): Promise<number> {
      const [row] = await db('import_runs')
        .insert({ editor_id: run.editorId, file_name: run.fileName, format: run.format, file: fileIn(db, run.file), dry_run: run.dryRun, total_rows: run.totalRows })
        .returning('id');
      return Number((row as { id: number | string }).id);
    },

    async find(id: number): Promise<ImportRun | undefined> {
      const row = await db('import_runs').select(COLUMNS).where({ id }).first();
      return row ? toRun(row) : undefined;
    },

    async fileOf(id: number): Promise<Buffer | undefined> {
      const row: { file: string | null } | undefined = await db('import_runs').select(db.raw(`encode(file, 'base64') AS file`)).where({ id }).first();
      // Postgres breaks base64 into lines; Buffer skips the line breaks.
      return row?.file != null ? Buffer.from(row.file, 'base64') : undefined;
    },

    /** A run without its report (a dry run's report of every row is large; reading it is not free). */
    async findWithoutReport(id: number): Promise<ImportRun | undefined> {
      const row = await db('import_runs').select(COLUMNS.filter((column) => column !== 'report')).where({ id }).first();
      return row ? toRun({ ...row, report: null }) : undefined;
    },

    async recent(limit: number): Promise<ImportRun[]> {
      const rows = await db('import_runs').select(COLUMNS.filter((column) => column !== 'report')).orderBy('id', 'desc').limit(limit);
      return rows.map((row) => toRun({ ...row, report: null }));
    },

    async progress(id: number, doneRows: number): Promise<void> {
      await db('import_runs').where({ id }).update({ done_rows: doneRows, updated_at: db.fn.now() });
    },

    async finish(id: number, outcome: { report: ImportReport; keepFile: boolean } | { error: string }): Promise<void> {
      const fields =
        'report' in outcome
          ? { state: 'done', report: JSON.stringify(outcome.report), done_rows: db.ref('total_rows'), ...(outcome.keepFile ? {} : { file: null }) }
          : { state: 'failed', error: outcome.error, file: null };
      await db('import_runs').where({ id }).update({ ...fields, updated_at: db.fn.now() });
    },

    /**
     * Starts applying dry run `id` (a new run with its file), once: a second click gets the first apply's id.
     * Undefined when `id` is not a finished dry run.
     */
    async claimApply(id: number, editorId: number | null): Promise<{ runId: number; started: boolean } | undefined> {
      return db.transaction(async (trx) => {
        const row: { applied_run_id: string | number | null; state: string } | undefined = await trx('import_runs')
          .select('applied_run_id', 'state')
          .where({ id, dry_run: true })
          .forUpdate()
          .first();
        if (!row || row.state !== 'done') return undefined;
        if (row.applied_run_id !== null) return { runId: Number(row.applied_run_id), started: false };
        const inserted = await trx.raw<{ rows: { id: string | number }[] }>(
          `INSERT INTO import_runs (editor_id, file_name, format, file, dry_run, total_rows)
           SELECT ?, file_name, format, file, false, total_rows FROM import_runs WHERE id = ? RETURNING id`,
          [editorId, id],
        );
        const runId = Number(inserted.rows[0]!.id);
        await trx('import_runs').where({ id }).update({ applied_run_id: runId, file: null });
        return { runId, started: true };
      });
    },

    /** Runs older than `days` go (their files with them). */
    async removeOlderThan(days: number): Promise<void> {
      await db('import_runs').where('created_at', '<', db.raw(`now() - make_interval(days => ?)`, [days])).delete();
    },
  };
}

export type ImportRunsRepository = ReturnType<typeof createImportRunsRepository>;
