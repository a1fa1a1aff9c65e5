import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseCidrList } from '../../src/outbound/address-policy';

/**
 * The "public internet" of the outbound tests: sites on 127.0.0.2, which the tests' allow-list lets
 * through. 127.0.0.1, ::1 and every other private address stay refused, so a hostile site that
 * redirects to them (or a name that resolves to them) shows the refusal.
 */
export const PUBLIC_TEST_HOST = '127.0.0.2';
export const TEST_ALLOW_CIDRS = parseCidrList(`${PUBLIC_TEST_HOST}/32`);

export interface LoopbackSite {
  origin: string;
  port: number;
  /** Request paths in arrival order. */
  requests: string[];
  /** Resolves when a connection the site accepted is closed (e.g. the client gave up on a body). */
  nextClose(): Promise<void>;
  close(): Promise<void>;
}

export async function startSite(handler: http.RequestListener, host = PUBLIC_TEST_HOST, port = 0): Promise<LoopbackSite> {
  const requests: string[] = [];
  const closeWaiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  server.on('connection', (socket) => socket.on('close', () => closeWaiters.splice(0).forEach((resolve) => resolve())));
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const listening = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${listening}`,
    port: listening,
    requests,
    nextClose: () => new Promise<void>((resolve) => closeWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
