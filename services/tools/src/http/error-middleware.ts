import type { ErrorRequestHandler, RequestHandler } from 'express';
import { requestLog } from '@platform/kit';
import { AppError } from '../errors/app-error';
import { Messages, messageText } from '../errors/messages';
import { fail } from './envelope';

/** Any path no route answers. */
export const notFound: RequestHandler = (_req, _res, next) => {
  next(new AppError('notFound', 404));
};

/** A body parser's refusal (malformed or oversized body) as the client error it is; null for anything else. */
function bodyRefusal(error: { status?: unknown }): AppError | null {
  const status = typeof error.status === 'number' ? error.status : 0;
  return status >= 400 && status < 500 ? new AppError('badParameter', status, {}, '请求无效') : null;
}

/** The one place failures become envelopes. Unknown errors are logged in full and answered with the generic 500. */
export const errorMiddleware: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) {
    requestLog(req)?.error({ err: error }, 'error after the response started');
    res.destroy();
    return;
  }
  const expected = error instanceof AppError ? error : bodyRefusal(error ?? {});
  if (expected) {
    res.set(expected.headers).status(expected.status).json(fail(expected.status, messageText(expected.key, expected.detail)));
    return;
  }
  requestLog(req)?.error({ err: error }, 'unexpected fault');
  res.status(500).json(fail(500, Messages.internalError));
};
