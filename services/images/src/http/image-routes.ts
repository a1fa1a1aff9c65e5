import express, { type Request, type Response } from 'express';
import type { AuthService } from '../auth/auth-service';
import type { CategoriesService } from '../categories/categories-service';
import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import type { BinService } from '../images/bin-service';
import type { ListingService } from '../images/listing-service';
import type { ThumbnailService } from '../images/thumbnail-service';
import type { UploadService } from '../images/upload-service';
import type { Metrics, UploadOutcome } from '../metrics/metrics';
import type { UserRow } from '../users/users-repository';
import type { ProfileService } from '../users/profile-service';
import { fail, ok } from './envelope';
import {
  bodyOrQuery,
  fieldsOf,
  parseAction,
  parseCategoryName,
  parseId,
  parseIdempotencyKey,
  parseOptionalCategoryId,
  parsePageQuery,
  parseThumbRequest,
  presentedToken,
} from './image-params';
import type { UploadReceiver } from './upload-receiver';

export interface ImageRoutesDeps {
  auth: AuthService;
  uploads: UploadService;
  listing: ListingService;
  bin: BinService;
  categories: CategoriesService;
  profile: ProfileService;
  thumbnails: ThumbnailService;
  receiver: UploadReceiver;
  metrics: Metrics;
  maxUploadBytes: number;
}

function uploadOutcome(error: unknown): UploadOutcome {
  if (!(error instanceof AppError)) return 'failed';
  switch (error.message) {
    case Messages.notLoggedIn:
      return 'rejected_auth';
    case Messages.fileTooLarge:
      return 'rejected_size';
    case Messages.quotaExceeded:
      return 'rejected_quota';
    case Messages.unsupportedType:
    case Messages.tooManyPixels:
    case Messages.corruptImage:
      return 'rejected_type';
    default:
      return 'rejected_input';
  }
}

export function createImageRoutes(deps: ImageRoutesDeps): express.Router {
  const { auth } = deps;
  const router = express.Router();

  /**
   * The upload, top to bottom. Counted here and only here; every temp file it made is removed in
   * the one `finally` (the upload service moves the accepted file into the store first).
   * Order of checks: header/query token, the body as it streams (shape, size cut-off at the
   * group's limit), body token, Idempotency-Key, file, category_id; then the service's own.
   */
  async function upload(req: Request, res: Response): Promise<void> {
    const receipt = deps.receiver.upload();
    let outcome;
    try {
      const headerOrQuery = presentedToken(req.get('x-api-token'), req.query.token);
      let user: UserRow | undefined = headerOrQuery.present ? await auth.authenticate(headerOrQuery.token) : undefined;
      const body = await receipt.receive(req, res, Math.min(user?.maxFileSize ?? deps.maxUploadBytes, deps.maxUploadBytes));
      user ??= await auth.authenticate(presentedToken(body.fields.token).token);
      const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
      if (!body.file || body.file.size === 0) throw new AppError(Messages.noFile, 200);
      const categoryId = parseOptionalCategoryId(body.fields.category_id ?? req.query.category_id);

      outcome = await deps.uploads.upload({ user, file: body.file, categoryId, idempotencyKey });
      deps.metrics.countUpload(outcome.replayed ? 'replayed' : 'stored');
      if (outcome.madeThumbnail) deps.metrics.countThumbnail();
    } catch (error) {
      deps.metrics.countUpload(uploadOutcome(error));
      throw error;
    } finally {
      // Before any answer goes out: a client that reads the answer finds nothing left in tmp/.
      await receipt.discard();
    }
    res.json(ok(Messages.uploaded, outcome.image));
  }

  router.all('/api/image.php', async (req, res) => {
    res.locals.metricsRoute = 'invalid_action';
    const action = parseAction(req.query, req.method);
    res.locals.metricsRoute = action;
    if (action === 'upload') return upload(req, res);

    // Precedence header > query > body; a present but wrong token never falls back to another source.
    const headerOrQuery = presentedToken(req.get('x-api-token'), req.query.token);
    let user: UserRow | undefined = headerOrQuery.present ? await auth.authenticate(headerOrQuery.token) : undefined;
    if (req.method === 'POST' && req.is('multipart/form-data')) await deps.receiver.fields(req, res);
    const body = fieldsOf(req.body);
    user ??= await auth.authenticate(presentedToken(body.token).token);
    const query = req.query as Record<string, unknown>;

    switch (action) {
      case 'list':
        res.json(ok(Messages.ok, await deps.listing.list(user, parsePageQuery(query))));
        return;
      case 'trash':
        res.json(ok(Messages.ok, await deps.listing.trash(user, parsePageQuery(query))));
        return;
      case 'delete':
        await deps.bin.delete(user, parseId(bodyOrQuery(body, query, 'id')));
        res.json(ok(Messages.deleted));
        return;
      case 'restore':
        await deps.bin.restore(user, parseId(bodyOrQuery(body, query, 'id')));
        res.json(ok(Messages.restored));
        return;
      case 'purge':
        await deps.bin.purge(user, parseId(bodyOrQuery(body, query, 'id')));
        res.json(ok(Messages.purged));
        return;
      case 'categories':
        res.json(ok(Messages.ok, await deps.categories.list(user)));
        return;
      case 'create_category':
        res.json(ok(Messages.categoryCreated, await deps.categories.create(user, parseCategoryName(bodyOrQuery(body, query, 'name')))));
        return;
      case 'profile':
        res.json(ok(Messages.ok, await deps.profile.profile(user)));
        return;
    }
  });

  router.get('/api/thumb.php', async (req, res) => {
    res.locals.metricsRoute = 'thumb';
    const request = parseThumbRequest(req.query);
    const found = request && (await deps.thumbnails.thumbnail(request.id, request.sig));
    if (!found) throw new AppError(Messages.imageNotFound, 404);
    res.sendFile(
      found.path,
      {
        headers: { 'Content-Type': found.mimeType, 'X-Content-Type-Options': 'nosniff' },
        // Revalidated daily: a binned image must stop answering within a day even from caches.
        maxAge: '1d',
        dotfiles: 'deny',
      },
      (error) => {
        if (error && !res.headersSent) res.status(404).json(fail(Messages.imageNotFound));
      },
    );
  });

  return router;
}
