import type { ErrorRequestHandler } from 'express';
import multer from 'multer';
import { AppError } from './app-error';
import { fail } from './envelope';
import { Messages, type Message } from './messages';

function messageForMulterError(error: multer.MulterError): Message {
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return Messages.fileTooLarge;
    case 'LIMIT_UNEXPECTED_FILE':
      return error.field === 'file' ? Messages.badParameter : Messages.noFile;
    default:
      return Messages.badParameter;
  }
}

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
  if (error instanceof multer.MulterError) {
    res.status(200).json(fail(messageForMulterError(error)));
    return;
  }
  // body-parser and busboy failures: client sent something that is not a well-formed body.
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
