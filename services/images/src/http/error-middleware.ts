import type { ErrorRequestHandler, RequestHandler } from 'express';
import { requestLog } from '@platform/kit';
import { AppError } from '../errors/app-error';
import { Messages, messageText } from '../errors/messages';
import { fail } from './envelope';
import { refusalStatus, wantsHttpErrors } from './refusal-status';

/** Any path no route answers. */
export const notFound: RequestHandler = (_req, _res, next) => {
  next(new AppError('unknownAction', 404));
};

/** A body parser's refusal (malformed or oversized body) as the client error it is; null for anything else. */
function bodyRefusal(error: { status?: unknown; type?: unknown }): AppError | null {
  const status = typeof error.status === 'number' ? error.status : 0;
  const parserRefused = (typeof error.type === 'string' && error.type.startsWith('entity.')) || (status >= 400 && status < 500);
  return parserRefused ? new AppError('malformedRequest', 200) : null;
}

/** The machine's disk is full (or over its quota): a fault of the server, never of the request. */
function isStorageFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
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
    // A refusal the contract answers with 200 takes its own status when the client opted in.
    const status = expected.status === 200 && wantsHttpErrors(req) ? refusalStatus(expected.key) : expected.status;
    res.set(expected.headers).status(status).json(fail(messageText(expected.key)));
    return;
  }
  if (isStorageFull(error)) {
    requestLog(req)?.error({ err: error }, 'storage full: the request was refused and undone');
    res.status(507).json(fail(Messages.storageFull));
    return;
  }
  requestLog(req)?.error({ err: error }, 'unexpected fault');
  res.status(500).json(fail(Messages.internalError));
};
