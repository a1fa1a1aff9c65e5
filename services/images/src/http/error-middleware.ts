import type { ErrorRequestHandler, RequestHandler } from 'express';
import { requestLog } from '@platform/kit';
import { AppError } from '../errors/app-error';
import { messageText, type MessageKey } from '../errors/messages';
import { fail } from './envelope';
import { refusalStatus, wantsHttpErrors } from './refusal-status';

/**
 * How a compatible API (compat/) answers a failure in its own clients' shape; its router puts it in
 * `res.locals.failureShape`. Given the refusal's key, text and the status this service would use.
 */
export type FailureShape = (failure: { key: MessageKey; message: string; status: number }) => { status: number; body: unknown };

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
  const shape = res.locals.failureShape as FailureShape | undefined;
  const answer = (key: MessageKey, status: number) => {
    const failure = { key, message: messageText(key), status };
    const shaped = shape ? shape(failure) : { status, body: fail(failure.message) };
    res.status(shaped.status).json(shaped.body);
  };
  const expected = error instanceof AppError ? error : bodyRefusal(error ?? {});
  if (expected) {
    // A refusal the contract answers with 200 takes its own status when the client opted in.
    const status = expected.status === 200 && wantsHttpErrors(req) ? refusalStatus(expected.key) : expected.status;
    res.set(expected.headers);
    answer(expected.key, status);
    return;
  }
  if (isStorageFull(error)) {
    requestLog(req)?.error({ err: error }, 'storage full: the request was refused and undone');
    answer('storageFull', 507);
    return;
  }
  requestLog(req)?.error({ err: error }, 'unexpected fault');
  answer('internalError', 500);
};
