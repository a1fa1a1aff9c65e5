import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response } from 'express';
import { requestLog } from '@platform/kit';
import type { AccountService } from '../auth/account-service';
import type { AuthService, Principal } from '../auth/auth-service';
import type { CategoriesService } from '../categories/categories-service';
import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import type { BinService } from '../images/bin-service';
import type { BulkService } from '../images/bulk-service';
import type { ListingService } from '../images/listing-service';
import type { ThumbnailService } from '../images/thumbnail-service';
import { PrincipalChanged, type UploadOutcome as StoredUpload, type UploadService } from '../images/upload-service';
import type { Metrics, UploadOutcome } from '../metrics/metrics';
import type { AdminService } from '../users/admin-service';
import type { ProfileService } from '../users/profile-service';
import { createAccountActions } from './account-actions';
import type { ActionHandler } from './actions';
import { createAdminActions } from './admin-actions';
import { confirmationPage, DELETION_PAGE_HEADERS, deletedPage, goneLinkPage } from './deletion-page';
import { ok } from './envelope';
import { createImageActions } from './image-actions';
import {
  ACTIONS,
  fieldsOf,
  parseAction,
  parseIdempotencyKey,
  parseOptionalId,
  parseSignedLink,
  presentedToken,
  type ActionName,
} from './image-params';
import type { UploadReceiver } from './upload-receiver';

export interface ImageRoutesDeps {
  auth: AuthService;
  account: AccountService;
  admin: AdminService;
  uploads: UploadService;
  listing: ListingService;
  bin: BinService;
  bulk: BulkService;
  categories: CategoriesService;
  profile: ProfileService;
  thumbnails: ThumbnailService;
  receiver: UploadReceiver;
  metrics: Metrics;
  maxUploadBytes: number;
  formatTime: (date: Date) => string;
  clock: () => Date;
}

function uploadOutcome(error: unknown): UploadOutcome {
  if (!(error instanceof AppError)) return 'failed';
  switch (error.key) {
    case 'notLoggedIn':
      return 'rejected_auth';
    case 'fileTooLarge':
      return 'rejected_size';
    case 'quotaExceeded':
      return 'rejected_quota';
    case 'unsupportedType':
    case 'tooManyPixels':
    case 'corruptImage':
      return 'rejected_type';
    default:
      return 'rejected_input';
  }
}

/**
 * Actions whose one statement confirms the credential it reads for (the list and bin pages: see
 * credentialLive): with a principal recalled from memory they need no lookup of their own.
 */
const CONFIRMS_CREDENTIAL: ReadonlySet<ActionName> = new Set(['list', 'trash']);

/** The account area needs a signed-in session; the admin actions, an admin's. */
function requireAccess(action: ActionName, principal: Principal): void {
  const access = ACTIONS[action].access;
  if ((access === 'session' || access === 'admin') && principal.credential.kind !== 'session') throw new AppError('signInRequired', 200);
  if (access === 'admin' && !principal.user.isAdmin) throw new AppError('forbidden', 200);
}

export function createImageRoutes(deps: ImageRoutesDeps): express.Router {
  const { auth } = deps;
  const router = express.Router();
  const handlers: Record<Exclude<ActionName, 'upload'>, ActionHandler> = {
    ...createImageActions(deps),
    ...createAccountActions(deps),
    ...createAdminActions(deps),
  };

  /**
   * The upload, top to bottom. Counted here and only here; every temp file it made is removed in
   * the one `finally` (the upload service moves the accepted file into the store first).
   */
  async function upload(req: Request, res: Response): Promise<void> {
    const receipt = deps.receiver.upload();
    let outcome;
    try {
      outcome = await receiveAndStore(req, res, receipt);
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

  /**
   * Order of checks: header/query token, the body as it streams (shape, size cut-off at the group's
   * limit), body token, Idempotency-Key, file, category_id; then the service's own. Without a
   * header/query token, the body token is checked as the file part starts, so it must come before
   * the file: a file part with no credential yet is refused unread (请先登录), and one after a body
   * token is held to that user's group limit, as with a header token.
   *
   * A token looked up in the last minute is recalled, not looked up again (auth.recall): the upload's
   * reserve statement confirms the credential and the group settings the upload used, in its own
   * snapshot, before anything is charged or kept. A recalled principal is a guess, so the body
   * streams up to the service's cap rather than a limit that may be stale, and a refusal on a guess
   * is decided again on a fresh lookup, which comes first as it does without the recall: a stopped
   * credential answers 请先登录, and any other refusal is the one the fresh principal gets.
   */
  async function receiveAndStore(req: Request, res: Response, receipt: ReturnType<UploadReceiver['upload']>): Promise<StoredUpload> {
    const headerOrQuery = presentedToken(req.get('x-api-token'), req.query.token);
    let token = headerOrQuery.token;
    let guess = headerOrQuery.present ? auth.recall(token) : undefined;
    let principal: Principal | undefined = guess ?? (headerOrQuery.present ? await auth.authenticate(token) : undefined);
    const lookUpAgain = async (): Promise<Principal> => {
      guess = undefined;
      return (principal = await auth.authenticate(token));
    };

    /** The body token, given before the file part: its principal, and the file's size limit. */
    const bodyCredential = async (fields: Record<string, unknown>): Promise<number> => {
      token = presentedToken(fields.token).token;
      guess = auth.recall(token);
      const found = guess ?? (await auth.authenticate(token));
      principal = found;
      return guess ? deps.maxUploadBytes : Math.min(found.user.maxFileSize, deps.maxUploadBytes);
    };

    let request;
    try {
      const limit = guess ? deps.maxUploadBytes : Math.min(principal?.user.maxFileSize ?? deps.maxUploadBytes, deps.maxUploadBytes);
      const body = await receipt.receive(req, res, limit, principal ? undefined : bodyCredential);
      // A body without a file part: its token is checked after the body, as before.
      if (!principal) {
        token = presentedToken(body.fields.token).token;
        guess = auth.recall(token);
        principal = guess ?? (await auth.authenticate(token));
      }
      const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
      if (!body.file || body.file.size === 0) throw new AppError('noFile', 200);
      const categoryId = parseOptionalId(body.fields.category_id ?? req.query.category_id);
      request = { file: body.file, categoryId, idempotencyKey };
    } catch (error) {
      if (guess && error instanceof AppError) await lookUpAgain();
      throw error;
    }

    // At most: the guess, a fresh lookup, and one more should the group change during the second.
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await deps.uploads.upload({ ...request, principal });
        // A replay reads no statement that confirms the credential: on a guess, it is confirmed here.
        if (outcome.replayed && guess) await lookUpAgain();
        return outcome;
      } catch (error) {
        const decideAgain = error instanceof PrincipalChanged || (guess !== undefined && error instanceof AppError);
        if (!decideAgain || attempt === 3) throw error;
        principal = await lookUpAgain();
      }
    }
  }

  router.all('/api/image.php', async (req, res) => {
    res.locals.metricsRoute = 'invalid_action';
    const action = parseAction(req.query, req.method);
    res.locals.metricsRoute = action;
    if (action === 'upload') return upload(req, res);

    let principal: Principal | undefined;
    // Precedence header > query > body; a present but wrong token never falls back to another source.
    const headerOrQuery = presentedToken(req.get('x-api-token'), req.query.token);
    const isPublic = ACTIONS[action].access === 'public';
    const run = (who: Principal | undefined) =>
      handlers[action]({
        principal: who as Principal,
        body: fieldsOf(req.body),
        query: req.query as Record<string, unknown>,
        address: req.ip ?? 'unknown',
        now: deps.clock(),
      });

    // The hot reads skip the lookup when the token's principal is recalled; their statement confirms
    // the credential. Anything but an answer (a dead credential, a bad parameter) is decided again
    // below, with the lookup first, so the order of checks and the answers are the same either way.
    const recalled = headerOrQuery.present && CONFIRMS_CREDENTIAL.has(action) ? auth.recall(headerOrQuery.token) : undefined;
    const answerRecalled = async (who: Principal) => {
      try {
        requireAccess(action, who);
        return await run(who);
      } catch {
        return undefined;
      }
    };
    let answer = recalled && (await answerRecalled(recalled));
    if (!answer) {
      if (headerOrQuery.present && !isPublic) principal = await auth.authenticate(headerOrQuery.token);
      if (req.method === 'POST' && req.is('multipart/form-data')) await deps.receiver.fields(req, res);
      if (!isPublic) {
        principal ??= await auth.authenticate(presentedToken(fieldsOf(req.body).token).token);
        requireAccess(action, principal);
      }
      answer = await run(principal);
    }
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
    const found = request && (await deps.thumbnails.thumbnail(request.id, request.sig));
    if (!found) throw new AppError('imageNotFound', 404);
    const { object, mimeType } = found;
    res.set({
      'Content-Type': mimeType,
      'X-Content-Type-Options': 'nosniff',
      // Revalidated daily: a binned image must stop answering within a day even from caches.
      'Cache-Control': 'public, max-age=86400',
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
    res.status(image ? 200 : 404).set(DELETION_PAGE_HEADERS).send(image ? confirmationPage(image.originalName) : goneLinkPage());
  });
  router.post('/api/delete.php', async (req, res) => {
    res.locals.metricsRoute = 'delete_link';
    const link = parseSignedLink(req.query);
    const deleted = link !== null && (await deps.bin.deleteByLink(link.id, link.sig));
    res.status(deleted ? 200 : 404).set(DELETION_PAGE_HEADERS).send(deleted ? deletedPage() : goneLinkPage());
  });

  return router;
}
