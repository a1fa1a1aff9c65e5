import fs from 'node:fs';
import os from 'node:os';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import { EXPORT_FORMATS, EXPORT_MEDIA_TYPES, formatExport, type ExportFormat } from '../catalog/catalog-export';
import type { CatalogExport } from '../catalog/export-repository';
import type { EditorSession } from '../editors/editor-auth';
import { notFound } from '../errors/app-error';
import { ImportRefused, type ImportService } from '../imports/import-service';
import type { AdminContext } from './admin-layout';
import { adminMessage } from './admin-localize';
import { IMPORT_UPLOAD_MB, renderImportPage, renderImportRun } from './import-pages';
import { IMPORT_TEXT as I } from './import-text';

export const IMPORT_UPLOAD_PATH = '/import';

// To disk (a 20 MB file is not held by the parser as well); every path below removes it.
const upload = multer({ dest: os.tmpdir(), limits: { fileSize: IMPORT_UPLOAD_MB * 1024 * 1024, files: 1, fields: 5, parts: 6 } }).single('import_file');

/** Parses an import upload for a signed-in editor only, before admin-routes.ts checks the form token in its body. */
export function importUploadParser(isSignedIn: (res: Response) => boolean): RequestHandler {
  return (req, res, next) => {
    if (!isSignedIn(res) || !req.is('multipart/form-data')) {
      next();
      return;
    }
    upload(req, res, (error: unknown) => {
      if (error) res.locals.importUploadError = error instanceof multer.MulterError && error.code === 'LIMIT_FILE_SIZE' ? 'too_large' : 'invalid';
      next();
    });
  };
}

function idOf(req: Request): number {
  const raw = req.params.id;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

export function createImportAdminRoutes(deps: { imports: ImportService; readCatalog: () => Promise<CatalogExport>; contextOf: (res: Response) => AdminContext }) {
  const { imports, contextOf } = deps;
  const router = Router();
  const editorIdOf = (res: Response) => (res.locals.editorSession as EditorSession).editor.id;
  const page = async (res: Response, status: number, error?: string) =>
    res.status(status).type('html').send(renderImportPage(contextOf(res), { runs: await imports.recent(), error }));

  router.get('/import', async (_req, res) => {
    await page(res, 200);
  });

  router.post(IMPORT_UPLOAD_PATH, async (req, res) => {
    const file = (req as Request & { file?: Express.Multer.File }).file;
    try {
      const refused = res.locals.importUploadError as 'too_large' | 'invalid' | undefined;
      if (refused === 'too_large') return await page(res, 413, I.tooLarge(IMPORT_UPLOAD_MB));
      if (refused || !file) return await page(res, 422, I.noFile);
      const format = (req.body as Record<string, unknown>).format;
      const data = await fs.promises.readFile(file.path);
      // Browsers send the name as latin1 bytes of its UTF-8 form.
      const fileName = Buffer.from(file.originalname, 'latin1').toString('utf8');
      const runId = await imports.startDryRun({ fileName, data, format: typeof format === 'string' && format !== '' ? format : undefined, editorId: editorIdOf(res) });
      res.redirect(303, `/admin/imports/${runId}`);
    } catch (error) {
      if (!(error instanceof ImportRefused)) throw error;
      const { refusal } = error;
      await page(res, 422, refusal.reason === 'unreadable' ? I.unreadable(refusal.format, adminMessage(refusal.error)) : I[refusal.reason]);
    } finally {
      if (file) await fs.promises.rm(file.path, { force: true });
    }
  });

  router.get('/imports/:id', async (req, res) => {
    const run = await imports.find(idOf(req));
    if (!run) throw notFound();
    res.type('html').send(renderImportRun(contextOf(res), run));
  });

  router.post('/imports/:id/apply', async (req, res) => {
    const runId = await imports.apply(idOf(req), editorIdOf(res));
    if (runId === undefined) throw notFound();
    res.redirect(303, `/admin/imports/${runId}`);
  });

  router.get('/export', async (req, res) => {
    const format = (typeof req.query.format === 'string' ? req.query.format : 'json') as ExportFormat;
    if (!EXPORT_FORMATS.includes(format)) throw notFound();
    const body = formatExport(await deps.readCatalog(), format);
    const stamp = new Date().toISOString().slice(0, 10);
    res
      .type(EXPORT_MEDIA_TYPES[format])
      .set('Content-Disposition', `attachment; filename="directory-${stamp}.${format}"`)
      .send(body);
  });

  return router;
}
