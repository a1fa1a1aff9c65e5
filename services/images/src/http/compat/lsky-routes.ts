import express, { type Request, type Response } from 'express';
import { AppError } from '../../errors/app-error';
import { Messages } from '../../errors/messages';
import { bearerToken } from '../authenticate';
import { bodyText, fieldsOf, parseId, parseOptionalId, presentedToken } from '../image-params';
import { runUpload } from '../run-upload';
import type { CompatDeps } from './compat-deps';
import { lskyFailure, lskyListed, lskyPage, lskySuccess, lskyUploaded, lskyV1Failure, lskyV1Success, lskyV1Uploaded } from './lsky-answers';

/** Lsky's own page size for images and albums. */
const LSKY_PAGE_SIZE = 40;

/**
 * Lsky Pro's API under `/compat/lsky` (a client's "server" is `https://<host>/compat/lsky`): 2.x at
 * `/api/v1/…`, 1.x's upload and token at `/api/…`. Thin: every route is a call to the service's own
 * use cases (upload, list, bin, categories, profile, sign-in and named tokens). Albums are categories;
 * `strategy_id` and `permission` are accepted and change nothing (one storage, every image public).
 */
export function createLskyRoutes(deps: CompatDeps): express.Router {
  const router = express.Router();
  const base = `${deps.publicBaseUrl}/compat/lsky`;
  const principalOf = (req: Request) => deps.authenticate.token({ token: bearerToken(req.get('authorization')) });
  const readFields = async (req: Request, res: Response) => {
    if (req.method === 'POST' && req.is('multipart/form-data')) await deps.receiver.fields(req, res);
    return fieldsOf(req.body);
  };
  // Lsky asks for an email; here an account has a name, given as `email` (what clients send) or `name`.
  const credentialsOf = async (req: Request, res: Response) => {
    const fields = await readFields(req, res);
    const name = bodyText(fields, fields.email !== undefined ? 'email' : 'name');
    return { name, password: bodyText(fields, 'password'), address: req.ip ?? 'unknown' };
  };

  router.use('/api/v1', (_req, res, next) => {
    res.locals.failureShape = lskyFailure;
    next();
  });
  router.use('/api', (_req, res, next) => {
    res.locals.failureShape ??= lskyV1Failure;
    next();
  });

  router.post('/api/v1/tokens', async (req, res) => {
    res.locals.metricsRoute = 'lsky_tokens';
    // A named token ("Lsky Pro <time>"), as a user asks once to paste it into a client; revocable on its own.
    const user = await deps.auth.checkSignIn(await credentialsOf(req, res));
    const { token } = await deps.account.createNamedToken({ user }, `Lsky Pro ${deps.formatTime(deps.clock()).slice(0, 16)}`);
    res.json(lskySuccess('success', { token }));
  });

  router.post('/api/v1/upload', async (req, res) => {
    res.locals.metricsRoute = 'lsky_upload';
    const outcome = await runUpload(deps, async (receipt) => {
      const places = { headerOrQuery: presentedToken(bearerToken(req.get('authorization'))), bodyTokenField: 'token', fileField: 'file' };
      const { principal, body } = await deps.authenticate.upload(req, res, receipt, places);
      if (!body.file) throw new AppError('noFile', 200);
      if (body.file.size === 0) throw new AppError('emptyFile', 200);
      return deps.uploads.upload({ principal, file: body.file, categoryId: parseOptionalId(body.fields.album_id) });
    });
    res.json(lskySuccess(Messages.uploaded, lskyUploaded(outcome.image)));
  });

  router.get('/api/v1/images', async (req, res) => {
    res.locals.metricsRoute = 'lsky_images';
    const principal = await principalOf(req);
    const page = req.query.page === undefined ? 1 : parseId(req.query.page);
    const keyword = typeof req.query.keyword === 'string' && req.query.keyword.trim() !== '' ? req.query.keyword.trim() : undefined;
    const found = await deps.listing.list(principal, deps.clock(), { page, limit: LSKY_PAGE_SIZE, categoryId: parseOptionalId(req.query.album_id), keyword }, { withLinks: true });
    res.json(lskySuccess('success', lskyPage(found, found.list.map(lskyListed), `${base}/api/v1/images`)));
  });

  // picgo-plugin-lankong asks for `/api/v1/images/:<key>` (a colon before the key); PicList without it.
  router.delete('/api/v1/images/:key', async (req, res) => {
    res.locals.metricsRoute = 'lsky_delete';
    const principal = await principalOf(req);
    await deps.bin.delete(principal.user, parseId(String(req.params.key).replace(/^:/, '')));
    res.json(lskySuccess(Messages.deleted));
  });

  router.get('/api/v1/albums', async (req, res) => {
    res.locals.metricsRoute = 'lsky_albums';
    const principal = await principalOf(req);
    const { list } = await deps.categories.list(principal.user);
    const page = req.query.page === undefined ? 1 : parseId(req.query.page);
    const items = list.slice((page - 1) * LSKY_PAGE_SIZE, page * LSKY_PAGE_SIZE).map((album) => ({ id: album.id, name: album.name, intro: '', image_num: album.image_count }));
    res.json(lskySuccess('success', lskyPage({ page, limit: LSKY_PAGE_SIZE, total: list.length }, items, `${base}/api/v1/albums`)));
  });

  router.get('/api/v1/profile', async (req, res) => {
    res.locals.metricsRoute = 'lsky_profile';
    const principal = await principalOf(req);
    const [profile, { list }] = await Promise.all([deps.profile.profile(principal.user), deps.categories.list(principal.user)]);
    res.json(
      lskySuccess('success', {
        name: profile.username,
        avatar: '',
        email: '',
        capacity: Math.round((profile.quota_bytes / 1024) * 100) / 100,
        used_capacity: Math.round((profile.used_bytes / 1024) * 100) / 100,
        url: '',
        image_num: list.reduce((sum, album) => sum + album.image_count, 0),
        album_num: list.length,
        registered_ip: '',
      }),
    );
  });

  // Public in Lsky too (a guest's strategies): one, the service's storage.
  router.get('/api/v1/strategies', (_req, res) => {
    res.locals.metricsRoute = 'lsky_strategies';
    res.json(lskySuccess('success', { strategies: [{ id: 1, name: deps.storageName }] }));
  });

  // 1.x (uPic's Lsky Pro host, picgo-plugin-lankong "V1"): the token in a `token` header, the file in `image`.
  router.post('/api/token', async (req, res) => {
    res.locals.metricsRoute = 'lsky_tokens';
    // uPic asks before every upload: a session (it expires, and housekeeping removes it), not a named
    // token that would pile up to the account's limit.
    const { token } = await deps.auth.signIn(await credentialsOf(req, res));
    res.json(lskyV1Success('success', { token }));
  });

  router.post('/api/upload', async (req, res) => {
    res.locals.metricsRoute = 'lsky_upload';
    const outcome = await runUpload(deps, async (receipt) => {
      const places = { headerOrQuery: presentedToken(req.get('token')), bodyTokenField: 'token', fileField: 'image' };
      const { principal, body } = await deps.authenticate.upload(req, res, receipt, places);
      if (!body.file) throw new AppError('noFile', 200);
      if (body.file.size === 0) throw new AppError('emptyFile', 200);
      return deps.uploads.upload({ principal, file: body.file });
    });
    res.json(lskyV1Success(Messages.uploaded, lskyV1Uploaded(outcome.image)));
  });

  return router;
}
