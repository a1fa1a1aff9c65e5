import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/** Counts and times one finished request (the metrics' part of observeRequests). */
export type ObserveRequest = (labels: { route: string; method: string; status: string }, seconds: number) => void;

/**
 * A logger bound to this request (`req` in every line), for errors and notes about it. Undefined for
 * a request observeRequests did not see.
 */
export function requestLog(req: IncomingMessage): Logger | undefined {
  return (req as IncomingMessage & { log?: Logger }).log;
}

const REQUEST_ID = /^[\w.:@-]{1,128}$/;
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Makes the function that gives a URL with the value of every query parameter not named in
 * `loggedNames` replaced by `[redacted]`: an allow-list, so a parameter no one thought of (a password,
 * a deletion link's signature, a key) is never logged. A name is logged in clear only as it is listed,
 * byte for byte: any other spelling (`TOKEN`, `%74oken`, `token[]`) is redacted too, as one of them
 * may be what some parser reads as a secret.
 */
export function queryRedactor(loggedNames: readonly string[]): (url: string) => string {
  const logged = new Set(loggedNames);
  return (url) => {
    const queryStart = url.indexOf('?');
    if (queryStart === -1) return url;
    const pairs = url
      .slice(queryStart + 1)
      .split('&')
      .map((pair) => {
        const nameEnd = pair.indexOf('=');
        const rawName = nameEnd === -1 ? pair : pair.slice(0, nameEnd);
        return pair === '' || logged.has(rawName) ? pair : `${rawName}=[redacted]`;
      });
    return `${url.slice(0, queryStart + 1)}${pairs.join('&')}`;
  };
}

type ExpressRequest = IncomingMessage & { originalUrl?: string };

/**
 * Observes every request's end for both of its records:
 * - the log, by pino-http: one JSON line per request (probes excepted), carrying the request id nginx
 *   set (or a new one), echoed as `X-Request-Id`: `request completed` (info), `request aborted` (info:
 *   the client left first) or `request errored` (error: a 5xx or a failed response), with `req`, `res`
 *   and `responseTime` (ms). No header but the user agent is logged, and the query's values are
 *   redacted but for the parameters the service names in `loggedQueryNames`: credentials never reach a
 *   log. `requestLog(req)` is the logger pino-http bound to the request;
 * - the metric: an answered request (its end written before the client left) is counted and timed
 *   under the route label the routes put in `res.locals.metricsRoute` (an action name, `thumb`,
 *   `healthz`, ...), or `unmatched`.
 */
export function observeRequests(options: {
  logger: Logger;
  loggedQueryNames: readonly string[];
  observe: ObserveRequest;
  /** Counts requests in flight (registerCapacityMetrics' gauge): up when one arrives, down when its connection is done with it. */
  inFlight?: { inc(): void; dec(): void };
}): RequestHandler {
  const { logger, observe } = options;
  const redactQuery = queryRedactor(options.loggedQueryNames);
  const logRequest = pinoHttp({
    logger,
    genReqId(req, res) {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req) => PROBES.has((req as ExpressRequest).originalUrl ?? req.url ?? '') },
    // The raw request and response: only the fields below reach a line.
    wrapSerializers: false,
    serializers: {
      req: (req: ExpressRequest) => ({
        id: req.id,
        method: req.method,
        url: redactQuery(req.originalUrl ?? req.url ?? ''),
        remoteAddress: req.socket?.remoteAddress,
        userAgent: req.headers['user-agent'],
      }),
      res: (res: ServerResponse) => ({ statusCode: res.headersSent ? res.statusCode : null }),
    },
  });
  const inFlight = options.inFlight;
  return (req, res, next) => {
    const started = performance.now();
    inFlight?.inc();
    res.once('close', function observeEnd(this: Response) {
      inFlight?.dec();
      if (!this.writableEnded) return;
      const route = typeof this.locals.metricsRoute === 'string' ? this.locals.metricsRoute : 'unmatched';
      observe({ route, method: req.method, status: String(this.statusCode) }, (performance.now() - started) / 1000);
    });
    logRequest(req, res, next);
  };
}
