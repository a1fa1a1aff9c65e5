import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, messages } from './appError';
import { fail } from './envelope';

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new AppError(404, messages.notFound));
};

/** The one place errors become envelopes. Unknown errors are logged in full and answered with the generic 500. */
export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  if (error instanceof AppError) {
    res.set(error.headers).status(error.status).json(fail(error.status, error.message));
    return;
  }
  // body-parser style client errors (none parsed here today) keep their 4xx status.
  const status = typeof error?.status === 'number' && error.status >= 400 && error.status < 500 ? error.status : 500;
  if (status === 500) req.log?.error({ err: error }, 'unhandled error');
  res.status(status).json(fail(status, status === 500 ? messages.internal : messages.badParameter('请求无效')));
};
