import type { ErrorRequestHandler } from 'express';
import { requestLog } from '@platform/kit';

/**
 * Answering a request whose body is still arriving (a wrong token or an oversized file refused
 * before the body was read) makes Node close the socket under the client, and many clients, Node's
 * own included, then report EPIPE instead of reading the answer. So before a failure is rendered,
 * the rest of the body is read and dropped (never stored), up to the smaller `res.locals.maxUnreadBodyBytes`
 * a route set (an upload refused before any credential was known) or `maxBytes`.
 *
 * Past that, the answer goes out at once while what still arrives is dropped as it comes: a body left
 * unread would leave the connection stuck mid-request, and the next request nginx sends on it (it
 * keeps upstream connections alive) would wait until Node's keep-alive timeout closes it. Closing at
 * once instead loses the answer when nginx is still sending (a reset before it read the answer: 502).
 * A peer that sends more than `maxBytes` after that has the connection closed under it.
 */
export function drainUnreadBody(maxBytes: number): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (req.complete || req.destroyed) {
      next(error);
      return;
    }
    requestLog(req)?.debug('request refused before its body arrived: reading and dropping the rest before answering');
    const answerAfter = typeof res.locals.maxUnreadBodyBytes === 'number' ? Math.min(res.locals.maxUnreadBodyBytes, maxBytes) : maxBytes;
    let drained = 0;
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      next(error);
    };
    const stop = () => {
      req.off('data', onData);
      answer();
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > answerAfter + maxBytes) {
        stop();
        req.socket.destroy();
      } else if (drained > answerAfter) {
        answer();
      }
    };
    req.on('data', onData);
    req.once('end', stop);
    req.once('close', stop);
    req.resume();
  };
}
