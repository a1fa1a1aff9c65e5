import type { ErrorRequestHandler } from 'express';
import { AppError } from './app-error';
import { fail } from './envelope';
import { Messages } from './messages';

/** The single renderer of failures: expected ones as envelopes, anything else as the generic 500. */
export const errorMiddleware: ErrorRequestHandler = (error, req, res, _next) => {
  if (res.headersSent) {
    req.log?.error({ err: error }, 'error after response started');
    res.destroy();
    return;
  }
  if (error instanceof AppError) {
    res.status(error.httpStatus).json(fail(error.envelopeMessage));
    return;
  }
  // body-parser failures (multipart ones are mapped where multer runs): not a well-formed body.
  const bodyError = error as { type?: string; status?: number; message?: string };
  if (typeof bodyError.type === 'string' && bodyError.type.startsWith('entity.')) {
    res.status(200).json(fail(Messages.malformedRequest));
    return;
  }
  if (bodyError.status === 400 || bodyError.status === 413 || bodyError.status === 415) {
    res.status(200).json(fail(Messages.malformedRequest));
    return;
  }
  req.log?.error({ err: error }, 'unexpected fault');
  res.status(500).json(fail(Messages.internalError));
};
