import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response } from 'express';
import { requestLog } from '@platform/kit';
import type { AuthService, Principal } from '../auth/auth-service';
import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import type { BinService } from '../images/bin-service';
import type { ThumbnailService } from '../images/thumbnail-service';
import type { UploadOutcome as StoredUpload, UploadService } from '../images/upload-service';
import type { Metrics } from '../metrics/metrics';
import { createAccountActions } from './account-actions';
import type { ActionHandler } from './actions';
import { createAdminActions } from './admin-actions';
import { createAuthenticate } from './authenticate';
import { confirmationPage, DELETION_PAGE_HEADERS, deletedPage, deletionPageLanguage, goneLinkPage } from './deletion-page';
import { ok } from './envelope';
import { createImageActions } from './image-actions';
import { createShareActions } from './share-actions';
import { fieldsOf, parseAction, parseExpiry, parseIdempotencyKey, parseOptionalId, parseSignedLink, type ActionName } from './image-params';
import type { UploadReceiver } from './upload-receiver';
import { runUpload } from './run-upload';

/**
 * What the routes need: what each action table needs (so a use case added to one of them reaches the
 * routes with no change here), and the routes' own.
 */
export type ImageRoutesDeps = Parameters<typeof createImageActions>[0] &
  Parameters<typeof createAccountActions>[0] &
  Parameters<typeof createAdminActions>[0] &
  Parameters<typeof createShareActions>[0] & {
    auth: AuthService;
    uploads: UploadService;
    bin: BinService;
    thumbnails: ThumbnailService;
    receiver: UploadReceiver;
    metrics: Metrics;
    maxUploadBytes: number;
    formatTime: (date: Date) => string;
    timeZone: string;
    clock: () => Date;
  };

export function createImageRoutes(deps: ImageRoutesDeps): express.Router {
  const authenticate = createAuthenticate(deps);
  const router = express.Router();
  const handlers: Record<Exclude<ActionName, 'upload'>, ActionHandler> = {
    ...createImageActions(deps),
    ...createAccountActions(deps),
    ...createAdminActions(deps),
    ...createShareActions(deps),
  };

  /**
   * The upload, top to bottom. Counted here and only here; every temp file it made is removed in
   * the one `finally` (the upload service moves the accepted file into the store first).
   */
  async function upload(req: Request, res: Response): Promise<void> {
    const outcome = await runUpload(deps, (receipt) => receiveAndStore(req, res, receipt));
    res.json(ok(Messages.uploaded, outcome.image));
  }

  /** Order of checks: the credential and the body (authenticate.upload), Idempotency-Key, file, category_id; then the service's own. */
  async function receiveAndStore(req: Request, res: Response, receipt: ReturnType<UploadReceiver['upload']>): Promise<StoredUpload> {
    const { principal, body } = await authenticate.upload(req, res, receipt);
    const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
    if (!body.file) throw new AppError('noFile', 200);
    if (body.file.size === 0) throw new AppError('emptyFile', 200);
    const categoryId = parseOptionalId(body.fields.category_id ?? req.query.category_id);
    // Extension: when the image moves into the bin by itself.
    const expiresAt = parseExpiry(body.fields.expires_in ?? req.query.expires_in, body.fields.expires_at ?? req.query.expires_at, deps.clock());
    return deps.uploads.upload({ principal, file: body.file, categoryId, idempotencyKey, expiresAt });
  }

  router.all('/api/image.php', async (req, res) => {
    res.locals.metricsRoute = 'invalid_action';
    const action = parseAction(req.query, req.method);
    res.locals.metricsRoute = action;
    if (action === 'upload') return upload(req, res);

    const answer = await authenticate.action(req, res, action, (principal) =>
      handlers[action]({ principal: principal as Principal, body: fieldsOf(req.body), query: req.query as Record<string, unknown>, address: req.ip ?? 'unknown', now: deps.clock() }),
    );
    if ('download' in answer) {
      res.attachment(answer.download.fileName).type(answer.download.contentType).send(answer.download.content);
      return;
    }
    if (answer.headers) res.set(answer.headers);
    res.json(ok(answer.message, answer.data));
  });

  router.get('/api/thumb.php', async (req, res) => {
    res.locals.metricsRoute = 'thumb';
    const request = parseSignedLink(req.query);
    const binned = req.query.bin === '1';
    const found = request && (await (binned ? deps.thumbnails.binnedThumbnail(request.id, request.sig) : deps.thumbnails.thumbnail(request.id, request.sig)));
    if (!found) throw new AppError('imageNotFound', 404);
    const { object, mimeType } = found;
    res.set({
      'Content-Type': mimeType,
      'X-Content-Type-Options': 'nosniff',
      // Revalidated daily: a binned image must stop answering within a day even from caches. A bin
      // thumbnail is its owner's alone, and must stop with a restore or purge: kept by no shared cache, briefly.
      'Cache-Control': binned ? 'private, max-age=300' : 'public, max-age=86400',
      'Last-Modified': object.lastModified.toUTCString(),
      ETag: object.etag,
    });
    if (req.fresh) {
      object.body.destroy();
      res.status(304).end();
      return;
    }
    res.set('Content-Length', String(object.size));
    if (req.method === 'HEAD') {
      object.body.destroy();
      res.end();
      return;
    }
    // Headers are out: a failure now (the client went away, the store's stream broke) can only cut
    // the response short, which pipeline does; it is logged, not answered.
    await pipeline(object.body, res).catch((error: unknown) => requestLog(req)?.warn({ err: error }, 'thumbnail response ended early'));
  });

  // The deletion link of an upload answer (ShareX's DeletionURL): GET asks, POST deletes.
  router.get('/api/delete.php', async (req, res) => {
    res.locals.metricsRoute = 'delete_link';
    const link = parseSignedLink(req.query);
    const image = link && (await deps.bin.imageForDeletionLink(link.id, link.sig));
    const language = deletionPageLanguage(req);
    res.status(image ? 200 : 404).set(DELETION_PAGE_HEADERS).send(image ? confirmationPage(image.originalName, language) : goneLinkPage(language));
  });
  router.post('/api/delete.php', async (req, res) => {
    res.locals.metricsRoute = 'delete_link';
    const link = parseSignedLink(req.query);
    const deleted = link !== null && (await deps.bin.deleteByLink(link.id, link.sig));
    const language = deletionPageLanguage(req);
    res.status(deleted ? 200 : 404).set(DELETION_PAGE_HEADERS).send(deleted ? deletedPage(language) : goneLinkPage(language));
  });

  return router;
}
