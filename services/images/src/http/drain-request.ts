import type { ErrorRequestHandler } from 'express';
import { requestLog } from './request-observation';

/**
 * Answering a request whose body is still arriving (a wrong token or an oversized file refused
 * before the body was read) makes Node close the socket under the client, and many clients, Node's
 * own included, then report EPIPE instead of reading the answer. So before a failure is rendered,
 * the rest of the body is read and dropped (never stored), up to `maxBytes`; past that the answer
 * goes out at once and the connection closes.
 */
export function drainUnreadBody(maxBytes: number): ErrorRequestHandler {
  return (error, req, _res, next) => {
    if (req.complete || req.destroyed) {
      next(error);
      return;
    }
    requestLog(req)?.debug('request refused before its body arrived: reading and dropping the rest before answering');
    let drained = 0;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      req.off('data', onData);
      req.off('end', finish);
      req.off('close', finish);
      next(error);
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > maxBytes) finish();
    };
    req.on('data', onData);
    req.once('end', finish);
    req.once('close', finish);
    req.resume();
  };
}
