import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

/** Counts and times one finished request (the metrics' part of observeRequests). */
export type ObserveRequest = (labels: { route: string; method: string; status: string }, seconds: number) => void;

/** Where a request keeps its RequestObservation (see observeRequests, requestLog). */
const observations: unique symbol = Symbol('requestObservation');

/**
 * What observeRequests keeps on each request, for requestLog(req) and for recording the request's
 * end (its metric and its line): one object of one shape, so a request costs no closures of its own.
 */
class RequestObservation {
  /** The logger bound to the request, once something has asked for it. */
  logger: Logger | undefined = undefined;
  /** The request's end is observed (it is seen by up to three events). */
  ended = false;
  constructor(
    readonly base: Logger,
    readonly redactQuery: (url: string) => string,
    readonly observe: ObserveRequest,
    readonly id: string,
    readonly url: string,
    /** performance.now() when the request arrived. */
    readonly started: number,
  ) {}
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id (nginx's X-Request-Id, or a new one). */
    id?: string;
    [observations]?: RequestObservation;
  }
}

/** The `req` of a request's log lines: no header but the user agent, query values redacted but for the service's allow-list. */
function requestFields(req: IncomingMessage, state: RequestObservation) {
  return {
    id: state.id,
    method: req.method,
    url: state.redactQuery(state.url),
    remoteAddress: req.socket?.remoteAddress,
    userAgent: req.headers['user-agent'],
  };
}

/**
 * A logger bound to this request (`req` in every line), for errors and notes about it: made the
 * first time it is asked for. Undefined for a request observeRequests did not see.
 */
export function requestLog(req: IncomingMessage): Logger | undefined {
  const state = req[observations];
  if (!state) return undefined;
  return (state.logger ??= state.base.child({ req: requestFields(req, state) }));
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

/**
 * Observes every request's end, once, for both of its records: one middleware, one set of listeners
 * and one clock where there were two of each:
 * - the metric: an answered request (its end written before the client left) is counted and timed
 *   under the route label the routes put in `res.locals.metricsRoute` (an action name, `thumb`,
 *   `healthz`, ...), or `unmatched`;
 * - the log: one JSON line per request (probes excepted), carrying the request id nginx set (or a new
 *   one), echoed as `X-Request-Id`: `request completed` (info), `request aborted` (info: the client left
 *   first) or `request errored` (error: a 5xx or a failed response), with `req`, `res` and
 *   `responseTime` (ms), the fields pino-http wrote. No header but the user agent is logged, and the
 *   query's values are redacted but for the parameters the service names in `loggedQueryNames`:
 *   credentials never reach a log. `requestLog(req)` is a child logger
 *   bound to the request, made only when something logs through it (pino-http made one per request, and
 *   that was a quarter of a cached tools request's CPU).
 */
export function observeRequests(options: { logger: Logger; loggedQueryNames: readonly string[]; observe: ObserveRequest }): RequestHandler {
  const { logger, observe } = options;
  const redactQuery = queryRedactor(options.loggedQueryNames);
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    req[observations] = new RequestObservation(logger, redactQuery, observe, id, req.originalUrl ?? req.url, performance.now());
    res.on('close', observeEnd);
    res.on('finish', observeEnd);
    res.on('error', observeEnd);
    next();
  };
}

/** The listener of a response's end ('finish', 'close' or 'error'): records the request once. */
function observeEnd(this: Response, error?: unknown): void {
  const req = this.req;
  const state = req[observations];
  if (!state || state.ended) return;
  state.ended = true;
  const elapsedMs = performance.now() - state.started;
  if (this.writableEnded) {
    const route = typeof this.locals.metricsRoute === 'string' ? this.locals.metricsRoute : 'unmatched';
    state.observe({ route, method: req.method, status: String(this.statusCode) }, elapsedMs / 1000);
  }
  if (PROBES.has(state.url)) return;
  const res = { statusCode: this.headersSent ? this.statusCode : null };
  const responseTime = Math.round(elapsedMs);
  const log = state.logger ?? state.base;
  // A logger bound to the request already carries its `req`.
  const fields = state.logger ? { res, responseTime } : { req: requestFields(req, state), res, responseTime };
  if (error || this.statusCode >= 500) {
    log.error({ ...fields, err: error ?? new Error(`failed with status code ${this.statusCode}`) }, 'request errored');
  } else {
    log.info(fields, !req.readableAborted && this.writableEnded ? 'request completed' : 'request aborted');
  }
}
