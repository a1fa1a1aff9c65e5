import type http from 'node:http';
import net from 'node:net';
import type { Logger } from 'pino';

export interface GracefulShutdownOptions {
  logger: Logger;
  /**
   * How long a replica keeps serving after SIGTERM while it announces that it is leaving: `/readyz`
   * answers 503 and every answer carries `Connection: close`. 0: stop listening at once.
   */
  drainMs: number;
  /** After the drain window: how long in-flight requests may take before their connections are cut. */
  shutdownTimeoutMs: number;
  /** Closes what the service opened (database, storage, timers). */
  close(): Promise<void>;
  /** Called instead of exiting (tests); default process.exit. */
  exit?: (code: number) => void;
}

const DRAINING_BODY = JSON.stringify({ status: 'draining' });

function isReadinessProbe(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0]!.toLowerCase();
  return path === '/readyz' || path === '/readyz/';
}

/**
 * Stops the server without dropping a request, in three steps:
 *
 * 1. Drain (`drainMs`, SIGTERM only): the replica goes on answering, but `/readyz` says 503 (an
 *    orchestrator or load balancer that probes it takes it out of rotation) and every answer says
 *    `Connection: close`, so a proxy's pool of kept-alive connections to it empties as they are used.
 *    Idle connections are not closed here: a proxy may be reusing one at that very moment, and a POST
 *    sent on a connection the server just closed is one the proxy may not pass on. nginx closes its
 *    own idle ones (keepalive_timeout 4 s in proxy/, under Node's 5 s).
 * 2. Stop listening: new connections are refused, which a proxy passes to another replica whatever
 *    the method (nothing was sent). Open connections stay until their requests end (or, idle, until the
 *    client closes them or Node's keep-alive timeout does).
 * 3. Once every connection is gone (or `shutdownTimeoutMs` later, cutting the rest), `close()` and exit.
 *
 * SIGINT (Ctrl-C in a terminal) skips the drain window.
 */
export function stopGracefullyOnSignals(server: http.Server, options: GracefulShutdownOptions): void {
  const { logger } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;

  const drain = () => {
    const handlers = server.listeners('request') as ((req: http.IncomingMessage, res: http.ServerResponse) => void)[];
    server.removeAllListeners('request');
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      res.setHeader('Connection', 'close');
      if (isReadinessProbe(req.url)) {
        res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }).end(DRAINING_BODY);
        return;
      }
      for (const handler of handlers) handler.call(server, req, res);
    });
  };

  const stopListening = () => {
    logger.info('no longer accepting connections; waiting for in-flight requests');
    const forced = setTimeout(() => {
      logger.warn('shutdown timeout reached, closing remaining connections');
      server.closeAllConnections();
    }, options.shutdownTimeoutMs);
    forced.unref();
    // net's close, not http's: http.Server#close also closes idle keep-alive connections, which a proxy
    // may be about to reuse (see step 1). They end on their own: the client's or Node's keep-alive timeout.
    net.Server.prototype.close.call(server, async () => {
      clearTimeout(forced);
      try {
        await options.close();
        logger.info('shutdown complete');
        exit(0);
      } catch (error) {
        logger.error({ err: error }, 'error while closing');
        exit(1);
      }
    });
  };

  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const drainMs = signal === 'SIGTERM' ? options.drainMs : 0;
    if (drainMs <= 0) {
      logger.info({ signal }, 'shutting down: no new connections, waiting for in-flight requests');
      drain();
      stopListening();
      // No proxy is being handed over to (SIGINT, or no drain window): idle connections go at once, and
      // those of requests still running as soon as they end.
      server.closeIdleConnections();
      setInterval(() => server.closeIdleConnections(), 100).unref();
      return;
    }
    logger.info({ signal, drainMs }, 'shutting down: draining (readyz answers 503, connections close after each answer)');
    drain();
    setTimeout(stopListening, drainMs);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
