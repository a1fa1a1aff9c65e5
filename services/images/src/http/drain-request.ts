import type { ErrorRequestHandler } from 'express';
import { requestLog } from '@platform/kit';

/**
 * Answering a request whose body is still arriving (a wrong token or an oversized file refused
 * before the body was read) makes Node close the socket under the client, and many clients, Node's
 * own included, then report EPIPE instead of reading the answer. So before a failure is rendered,
 * the rest of the body is read and dropped (never stored), up to `maxBytes`, or the smaller
 * `res.locals.maxUnreadBodyBytes` a route set (an upload refused before any credential was known).
 * Past that, reading stops and the answer goes out at once. The connection is not closed under a
 * body still arriving: nginx, streaming an upload's body, then answers 502 instead of passing the
 * answer on. The peer closes it once it has the answer, or Node's keep-alive timeout does.
 */
export function drainUnreadBody(maxBytes: number): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (req.complete || req.destroyed) {
      next(error);
      return;
    }
    requestLog(req)?.debug('request refused before its body arrived: reading and dropping the rest before answering');
    const limit = typeof res.locals.maxUnreadBodyBytes === 'number' ? Math.min(res.locals.maxUnreadBodyBytes, maxBytes) : maxBytes;
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
      if (drained > limit) {
        req.pause();
        finish();
      }
    };
    req.on('data', onData);
    req.once('end', finish);
    req.once('close', finish);
    req.resume();
  };
}
