import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

/** How a service answers a request Node's parser refused: the status, its reason phrase and the JSON body. */
export interface ClientErrorRejection {
  status: number;
  reason: string;
  body: unknown;
}

/** The raw HTTP/1.1 answer to a refused request: the rejection's status and its body as JSON, then the connection closes. */
export function rawClientErrorAnswer({ status, reason, body }: ClientErrorRejection): string {
  const json = JSON.stringify(body);
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`;
}

/**
 * By default Node answers a request its parser refused before any route saw it (a raw, not
 * percent-encoded `截图` in the query, headers over 16 KB, a malformed request line) with an empty
 * body; this answers it with `answer(error)` instead, a raw HTTP answer (`rawClientErrorAnswer`).
 */
export function answerClientErrors(server: Server, logger: Logger, answer: (error: NodeJS.ErrnoException) => string): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this socket (pipelining) cannot be followed by another one.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    logger.info({ code: error.code }, 'request refused by the HTTP parser');
    socket.end(answer(error));
  });
}
