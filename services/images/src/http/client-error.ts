import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { Messages } from '../errors/messages';
import { fail } from './envelope';

function rejection(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, reason: 'Request Header Fields Too Large', message: Messages.malformedRequest };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: Messages.malformedRequest };
  return { status: 400, reason: 'Bad Request', message: Messages.malformedRequest };
}

/**
 * The raw HTTP answer to a request Node's parser refused before Express saw it (a raw, not
 * percent-encoded `截图` in the query, headers over 16 KB, a malformed request line): the status
 * Node would have used, the envelope `{code:1,msg:"请求格式错误"}` as the body.
 */
export function clientErrorAnswer(error: NodeJS.ErrnoException): string {
  const { status, reason, message } = rejection(error.code);
  const body = JSON.stringify(fail(message));
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** By default Node answers such requests with an empty body; this answers them with `answer(error)` instead. */
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

export function installClientErrorEnvelope(server: Server, logger: Logger): void {
  answerClientErrors(server, logger, clientErrorAnswer);
}
