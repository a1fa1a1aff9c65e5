import express, { type Request, type Response } from 'express';
import { AppError } from '../../errors/app-error';
import type { UploadResult } from '../../images/image-views';
import type { ReceivedFile } from '../../images/upload-service';
import { mimeTypeOfExtension } from '../../media/media-processor';
import type { FailureShape } from '../error-middleware';
import { fieldsOf, parseOptionalId, presentedToken, type RawFields } from '../image-params';
import { runUpload } from '../run-upload';
import type { UploadReceiver } from '../upload-receiver';
import type { CompatDeps } from './compat-deps';

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 500: 'Internal Server Error', 507: 'Insufficient Storage' };

/** Chevereto's failure: the HTTP status repeated in `status_code`, the reason in `error.message`. */
export const cheveretoFailure: FailureShape = ({ message, status }) => {
  const code = status === 404 || status >= 500 ? status : 400;
  return { status: code, body: { status_code: code, error: { message, code }, status_txt: STATUS_TEXT[code] } };
};

/** Chevereto's success (`image.url`, `image.thumb.url`, `image.url_viewer`: what ShareX and scripts read). */
function cheveretoUploaded(image: UploadResult, date: string) {
  const filename = image.url.split('/').pop() ?? '';
  const extension = filename.split('.').pop() ?? '';
  const mime = mimeTypeOfExtension(extension);
  return {
    status_code: 200,
    success: { message: 'image uploaded', code: 200 },
    image: {
      id_encoded: String(image.id),
      name: filename.replace(/\.[^.]*$/, ''),
      extension,
      filename,
      original_filename: image.original_name,
      size: image.file_size,
      width: image.width,
      height: image.height,
      date,
      mime,
      url: image.url,
      display_url: image.url,
      // No viewer page here: the viewer is the image itself (ShareX shows url_viewer unless "direct link" is set).
      url_viewer: image.url,
      thumb: { filename, extension: 'webp', mime: 'image/webp', url: image.thumb_url },
      delete_url: image.links.delete,
    },
    status_txt: 'OK',
  };
}

/** A base64 `source` (optionally a data: URI); a URL or anything else is 参数错误 (nothing is fetched). */
function decodeBase64Source(source: string): Buffer {
  const payload = source.replace(/^data:[\w/+.-]+;base64,/, '').replace(/\s+/g, '');
  if (payload === '' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(payload)) throw new AppError('badParameter', 200);
  return Buffer.from(payload, 'base64');
}

function parseFormat(value: unknown): 'json' | 'txt' | 'redirect' {
  if (value === undefined || value === '' || value === 'json') return 'json';
  if (value === 'txt' || value === 'redirect') return value;
  throw new AppError('badParameter', 200);
}

/**
 * Chevereto's `POST /api/1/upload` under `/compat/chevereto`. The key in `X-API-Key`, `?key=` or a
 * `key` field (before the file); `source` a file part, or base64 in a form field (urlencoded or JSON
 * bodies up to the upload limit, multipart fields up to 64 KB); `album_id` a category; `format`
 * json (default), txt (the URL alone) or redirect (to the image).
 */
export function createCheveretoRoutes(deps: CompatDeps): express.Router {
  const router = express.Router();
  // A base64 source is a third larger than its bytes.
  const textLimit = Math.ceil((deps.maxUploadBytes * 4) / 3) + 64 * 1024;
  router.use((_req, res, next) => {
    res.locals.failureShape = cheveretoFailure;
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: textLimit, parameterLimit: 50 }));
  router.use(express.json({ limit: textLimit }));

  async function receive(req: Request, res: Response, receipt: ReturnType<UploadReceiver['upload']>) {
    const headerOrQuery = presentedToken(req.get('x-api-key'), req.query.key);
    let fields: RawFields;
    let file: ReceivedFile | undefined;
    let principal;
    if (req.is('multipart/form-data')) {
      const received = await deps.authenticate.upload(req, res, receipt, { headerOrQuery, bodyTokenField: 'key', fileField: 'source' });
      ({ principal } = received);
      ({ fields, file } = received.body);
    } else {
      fields = fieldsOf(req.body);
      principal = await deps.authenticate.token(headerOrQuery.present ? headerOrQuery : presentedToken(fields.key));
    }
    if (!file && typeof fields.source === 'string') file = receipt.fromBytes(decodeBase64Source(fields.source), String(fields.title ?? fields.name ?? 'image'));
    if (!file) throw new AppError('noFile', 200);
    if (file.size === 0) throw new AppError('emptyFile', 200);
    const categoryId = parseOptionalId(fields.album_id ?? req.query.album_id);
    return { principal, file, categoryId, format: parseFormat(fields.format ?? req.query.format) };
  }

  router.post('/api/1/upload', async (req, res) => {
    res.locals.metricsRoute = 'chevereto_upload';
    const answer = { format: 'json' as 'json' | 'txt' | 'redirect' };
    const outcome = await runUpload(deps, async (receipt) => {
      const request = await receive(req, res, receipt);
      answer.format = request.format;
      return deps.uploads.upload(request);
    });
    const { format } = answer;
    if (format === 'txt') res.type('text/plain').send(outcome.image.url);
    else if (format === 'redirect') res.status(302).location(outcome.image.url).end();
    else res.json(cheveretoUploaded(outcome.image, deps.formatTime(deps.clock())));
  });

  return router;
}
