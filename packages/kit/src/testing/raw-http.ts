import { once } from 'node:events';
import type http from 'node:http';
import net from 'node:net';

/** A raw answer: `head`, the status line and headers as sent; `status`, `headers` (names lower-cased) and `text` (all after the head) read from it. */
export interface RawAnswer {
  head: string;
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Sends `bytes` as they are on a socket to 127.0.0.1 (as a client that does not percent-encode would,
 * or one that breaks HTTP) and reads the whole answer, until the server closes the connection.
 * `to`: a port, or a listening server.
 */
export async function rawExchange(to: number | http.Server, bytes: string | Buffer): Promise<RawAnswer> {
  const port = typeof to === 'number' ? to : (to.address() as net.AddressInfo).port;
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = once(socket, 'close');
  socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  await closed;
  const answer = Buffer.concat(chunks).toString('utf8');
  const headEnd = answer.indexOf('\r\n\r\n');
  const head = headEnd < 0 ? answer : answer.slice(0, headEnd);
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  return { head, status: Number(statusLine!.split(' ')[1]), headers, text: headEnd < 0 ? '' : answer.slice(headEnd + 4) };
}
