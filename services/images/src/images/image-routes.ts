import express, { type Request, type Response } from 'express';
import multer from 'multer';
import { fail, ok } from '../http/envelope';
import { AppError } from '../http/app-error';
import { Messages, type Message } from '../http/messages';
import type { UserRow } from '../users/users-repository';
import type { FileStorage } from '../storage/file-storage';
import type { ImagesService, ReceivedFile } from './images-service';
import { parseIdempotencyKey } from './input';

type ActionName = 'upload' | 'list' | 'delete' | 'trash' | 'restore' | 'purge' | 'categories' | 'create_category' | 'profile';

const ACTION_METHODS: Record<ActionName, 'GET' | 'POST'> = {
  upload: 'POST',
  list: 'GET',
  delete: 'POST',
  trash: 'GET',
  restore: 'POST',
  purge: 'POST',
  categories: 'GET',
  create_category: 'POST',
  profile: 'GET',
};

const multipartLimits = { fields: 20, fieldSize: 64 * 1024, parts: 25, headerPairs: 100 };

/**
 * The token of the first source that is present, header > query > body. A present source is used even
 * when unusable (a repeated `token` parameter arrives as an array): it then fails, never falling back.
 */
function presentToken(...sources: unknown[]): { present: boolean; token: string | undefined } {
  for (const value of sources) {
    if (value === undefined || value === '') continue;
    return { present: true, token: typeof value === 'string' ? value : undefined };
  }
  return { present: false, token: undefined };
}

function bodyOf(req: Request): Record<string, unknown> {
  return req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
}

/** A value given in the body wins over the same name in the query (delete, restore, purge, create_category). */
function bodyOrQuery(req: Request, name: string): unknown {
  const body = bodyOf(req);
  return body[name] !== undefined ? body[name] : (req.query as Record<string, unknown>)[name];
}

function messageForMulterError(error: multer.MulterError, expectsFile: boolean): Message {
  if (error.code === 'LIMIT_FILE_SIZE') return Messages.fileTooLarge;
  // A file part under another name than `file` is the "wrong field name" case of an upload.
  if (expectsFile && error.code === 'LIMIT_UNEXPECTED_FILE' && error.field !== 'file') return Messages.noFile;
  return Messages.badParameter;
}

/**
 * Runs a multer middleware as a promise. Every multer and busboy failure becomes an AppError here,
 * so the upload metrics and the error middleware see one kind of expected failure.
 */
function runMultipart(handler: express.RequestHandler, req: Request, res: Response, expectsFile: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    handler(req, res, (error?: unknown) => {
      if (!error) return resolve();
      if (error instanceof AppError) return reject(error);
      if (error instanceof multer.MulterError) return reject(new AppError(messageForMulterError(error, expectsFile)));
      // "Unexpected end of form", "Malformed part header", "Multipart: Boundary not found", ...
      reject(new AppError(Messages.malformedRequest));
    });
  });
}

export function createImageRoutes(deps: { service: ImagesService; storage: FileStorage; maxUploadBytes: number }): express.Router {
  const { service, storage } = deps;
  const router = express.Router();
  const diskStorage = multer.diskStorage({
    destination: (_req, _file, done) => done(null, storage.tmpDir),
    filename: (_req, _file, done) => done(null, storage.tempPath().slice(storage.tmpDir.length + 1)),
  });
  // Non-file POST actions also accept multipart bodies; any file part there is refused.
  const fieldsOnly = multer({ limits: { ...multipartLimits, files: 0 }, defParamCharset: 'utf8' }).none();

  const receiveUpload = (req: Request, res: Response, fileSizeLimit: number) =>
    runMultipart(
      multer({
        storage: diskStorage,
        // Streams to disk and stops at the limit: memory use does not grow with the file.
        limits: { ...multipartLimits, fileSize: fileSizeLimit, files: 1 },
        defParamCharset: 'utf8',
      }).single('file'),
      req,
      res,
      true,
    );

  router.all('/api/image.php', async (req, res) => {
    const action = req.query.action;
    if (typeof action !== 'string' || !Object.hasOwn(ACTION_METHODS, action)) throw new AppError(Messages.unknownAction);
    const actionName = action as ActionName;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (ACTION_METHODS[actionName] !== method) throw new AppError(Messages.unknownAction);

    // Precedence header > query > body; a present but wrong token never falls back to another source.
    const headerOrQuery = presentToken(req.get('x-api-token'), req.query.token);
    let user: UserRow | undefined = !headerOrQuery.present ? undefined : await service.authenticate(headerOrQuery.token).catch((error) => {
      if (actionName === 'upload') service.countRejectedUpload(error);
      throw error;
    });

    if (actionName === 'upload') {
      try {
        await receiveUpload(req, res, Math.min(user?.maxFileSize ?? deps.maxUploadBytes, deps.maxUploadBytes));
      } catch (error) {
        await storage.removeTemp(req.file?.path);
        service.countRejectedUpload(error);
        throw error;
      }
      const file: ReceivedFile | undefined = req.file
        ? { path: req.file.path, size: req.file.size, originalName: req.file.originalname }
        : undefined;
      let beforeService = true;
      let data;
      try {
        if (!user) user = await service.authenticate(presentToken(bodyOf(req).token).token);
        const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
        beforeService = false;
        data = await service.upload({ user, file, categoryId: bodyOf(req).category_id ?? req.query.category_id, idempotencyKey });
      } catch (error) {
        // service.upload consumes the temp file and counts its own outcomes; this covers what fails before it.
        if (beforeService) {
          await storage.removeTemp(file?.path);
          service.countRejectedUpload(error);
        }
        throw error;
      }
      res.json(ok(Messages.uploaded, data));
      return;
    }

    if (method === 'POST' && req.is('multipart/form-data')) await runMultipart(fieldsOnly, req, res, false);
    user ??= await service.authenticate(presentToken(bodyOf(req).token).token);
    const query = req.query as Record<string, unknown>;

    switch (actionName) {
      case 'list':
        res.json(ok(Messages.ok, await service.list(user, query)));
        return;
      case 'trash':
        res.json(ok(Messages.ok, await service.trash(user, query)));
        return;
      case 'delete':
        await service.delete(user, bodyOrQuery(req, 'id'));
        res.json(ok(Messages.deleted));
        return;
      case 'restore':
        await service.restore(user, bodyOrQuery(req, 'id'));
        res.json(ok(Messages.restored));
        return;
      case 'purge':
        await service.purge(user, bodyOrQuery(req, 'id'));
        res.json(ok(Messages.purged));
        return;
      case 'categories':
        res.json(ok(Messages.ok, await service.listCategories(user)));
        return;
      case 'create_category':
        res.json(ok(Messages.categoryCreated, await service.createCategory(user, bodyOrQuery(req, 'name'))));
        return;
      case 'profile':
        res.json(ok(Messages.ok, await service.profile(user)));
        return;
    }
  });

  router.get('/api/thumb.php', async (req, res) => {
    const found = await service.thumbnail(req.query.id, req.query.sig);
    if (!found) throw new AppError(Messages.imageNotFound, 404);
    res.sendFile(found.path, {
      headers: { 'Content-Type': found.mimeType, 'X-Content-Type-Options': 'nosniff' },
      // Revalidated daily: a binned image must stop answering within a day even from caches.
      maxAge: '1d',
      dotfiles: 'deny',
    }, (error) => {
      if (!error) return;
      if (!res.headersSent) res.status(404).json(fail(Messages.imageNotFound));
    });
  });

  return router;
}
