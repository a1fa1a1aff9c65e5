import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import querystring from 'node:querystring';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

// This file is the same in both services (DESIGN: each owns its glue, no shared package).

/** Where a request keeps its logger (see requestLog). */
const requestLogs: unique symbol = Symbol('requestLog');

declare module 'http' {
  interface IncomingMessage {
    /** The request id (nginx's X-Request-Id, or a new one). */
    id?: string;
    [requestLogs]?: { logger: Logger | undefined; make: () => Logger };
  }
}

/**
 * A logger bound to this request (`req` in every line), for errors and notes about it: made the
 * first time it is asked for. Undefined for a request requestLogging did not see.
 */
export function requestLog(req: IncomingMessage): Logger | undefined {
  const state = req[requestLogs];
  if (!state) return undefined;
  return (state.logger ??= state.make());
}

const REQUEST_ID = /^[\w.:@-]{1,128}$/;
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** A parameter name as compared with a secret's: decoded, lowercase, without `[...]`, letters and digits only. */
function comparableName(rawName: string): string {
  return querystring
    .unescape(rawName.replace(/\+/g, ' '))
    .toLowerCase()
    .replace(/\[.*$/s, '')
    .replace(/[^a-z0-9]/g, '');
}

/** Query parameter names seen are few (action, page, ...): each one's verdict is kept, up to this many. */
const MAX_REMEMBERED_NAMES = 1000;

/**
 * Makes the function that gives a URL with the value of every secret query parameter replaced by
 * `[redacted]`. A name counts as the secret however it is spelled on the wire: percent-encoded
 * (`%74oken`), in another case (`TOKEN`), with array brackets (`token[]`, `token[0]`, `token%5B%5D`)
 * or other separators (`api-key`). Such spellings are refused by the API, but their values are still
 * secrets. Runs for every request's log line, so the secrets' comparable forms are made once and each
 * parameter name is compared once.
 */
export function secretRedactor(secretNames: readonly string[]): (url: string) => string {
  const secrets = new Set(secretNames.map(comparableName));
  const verdicts = new Map<string, boolean>();
  const isSecret = (rawName: string): boolean => {
    let secret = verdicts.get(rawName);
    if (secret === undefined) {
      secret = secrets.has(comparableName(rawName));
      if (verdicts.size >= MAX_REMEMBERED_NAMES) verdicts.clear();
      verdicts.set(rawName, secret);
    }
    return secret;
  };
  return (url) => {
    const queryStart = url.indexOf('?');
    if (queryStart === -1) return url;
    const pairs = url
      .slice(queryStart + 1)
      .split('&')
      .map((pair) => {
        const nameEnd = pair.indexOf('=');
        const rawName = nameEnd === -1 ? pair : pair.slice(0, nameEnd);
        return isSecret(rawName) ? `${rawName}=[redacted]` : pair;
      });
    return `${url.slice(0, queryStart + 1)}${pairs.join('&')}`;
  };
}

/**
 * One JSON log line per request (probes excepted) when it ends, carrying the request id nginx set (or
 * a new one), echoed as `X-Request-Id`: `request completed` (info), `request aborted` (info: the client
 * left first) or `request errored` (error: a 5xx or a failed response), with `req`, `res` and
 * `responseTime` (ms), the fields pino-http wrote. No header but the user agent is logged, and secret
 * query parameters are redacted: credentials never reach a log. `requestLog(req)` is a child logger bound to
 * the request, made only when something logs through it (pino-http made one per request, and that
 * was a quarter of a cached tools request's CPU).
 */
export function requestLogging(logger: Logger, secretNames: readonly string[]): RequestHandler {
  const redactSecrets = secretRedactor(secretNames);
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    req.id = id;
    const started = Date.now();
    const url = req.originalUrl ?? req.url;
    const requestFields = () => ({
      id,
      method: req.method,
      url: redactSecrets(url),
      remoteAddress: req.socket?.remoteAddress,
      userAgent: req.headers['user-agent'],
    });
    // A data property on each request, read through requestLog(req): cheaper than defining an
    // accessor (a new getter) on every request object, as this once did.
    const state = { logger: undefined as Logger | undefined, make: () => logger.child({ req: requestFields() }) };
    req[requestLogs] = state;
    if (!PROBES.has(req.url)) {
      const done = (error?: unknown) => {
        res.removeListener('close', done);
        res.removeListener('finish', done);
        res.removeListener('error', done);
        const fields = {
          ...(state.logger ? {} : { req: requestFields() }),
          res: { statusCode: res.headersSent ? res.statusCode : null },
          responseTime: Date.now() - started,
        };
        const log = state.logger ?? logger;
        if (error || res.statusCode >= 500) {
          log.error({ ...fields, err: error ?? new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
        } else {
          log.info(fields, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
        }
      };
      res.on('close', done);
      res.on('finish', done);
      res.on('error', done);
    }
    next();
  };
}
