import express from 'express';
import { AppError } from '../../errors/app-error';
import type { FailureShape } from '../error-middleware';
import { presentedToken } from '../image-params';
import { runUpload } from '../run-upload';
import type { CompatDeps } from './compat-deps';

/** EasyImage's failure: HTTP 200, `result: failed`, `code` 202 for a bad token (as its check_api), 403 for the file. */
export const easyImageFailure: FailureShape = ({ key, message, status }) => ({
  status: status === 404 || status >= 500 ? status : 200,
  body: { result: 'failed', code: key === 'notLoggedIn' ? 202 : status >= 500 ? status : 403, message },
});

/**
 * EasyImage 2.x's `POST /api/index.php` under `/compat/easyimage`: the file in `image`, the token in a
 * `token` field (before or after it, as EasyImage's own test form sends it after) or `?token=`. Its
 * answer: `result`, `code`, `url`, `srcName`, `thumb`, `del`, `message`.
 */
export function createEasyImageRoutes(deps: CompatDeps): express.Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.locals.failureShape = easyImageFailure;
    next();
  });

  router.post('/api/index.php', async (req, res) => {
    res.locals.metricsRoute = 'easyimage_upload';
    const outcome = await runUpload(deps, async (receipt) => {
      const places = { headerOrQuery: presentedToken(req.query.token), bodyTokenField: 'token', fileField: 'image', tokenAfterFile: true };
      const { principal, body } = await deps.authenticate.upload(req, res, receipt, places);
      if (!body.file) throw new AppError('noFile', 200);
      if (body.file.size === 0) throw new AppError('emptyFile', 200);
      return deps.uploads.upload({ principal, file: body.file });
    });
    const { image } = outcome;
    // srcName is the uploaded name without its extension, as EasyImage's.
    const srcName = image.original_name.replace(/\.[^.]*$/, '') || image.original_name;
    res.json({ result: 'success', code: 200, url: image.url, srcName, thumb: image.thumb_url, del: image.links.delete, message: 'success' });
  });

  return router;
}
