import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { fail } from './envelope';
import { Messages } from './messages';

const statusLines: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * The raw HTTP answer to a request Node's parser refused before Express saw it: a raw, not
 * percent-encoded `截图` in the query (what `curl "…&keyword=截图"` sends), headers over 16 KB, a
 * malformed request line. Node's status, the envelope `{code:1,msg:"请求格式错误"}` as the body.
 */
export function clientErrorAnswer(error: NodeJS.ErrnoException): string {
  const statusLine = statusLines[error.code ?? ''] ?? '400 Bad Request';
  const body = JSON.stringify(fail(Messages.malformedRequest));
  return `HTTP/1.1 ${statusLine}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** By default Node answers such requests with an empty body; this answers them with the envelope. */
export function installClientErrorEnvelope(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this socket (pipelining) cannot be followed by another one.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    logger.info({ code: error.code }, 'request refused by the HTTP parser');
    socket.end(clientErrorAnswer(error));
  });
}
