import { randomUUID } from 'node:crypto';
import querystring from 'node:querystring';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

// This file is the same in both services (DESIGN: each owns its glue, no shared package).

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

/**
 * The URL with the value of every secret query parameter replaced by `[redacted]`. A name counts as
 * the secret however it is spelled on the wire: percent-encoded (`%74oken`), in another case
 * (`TOKEN`), with array brackets (`token[]`, `token[0]`, `token%5B%5D`) or other separators
 * (`api-key`). Such spellings are refused by the API, but their values are still secrets.
 */
export function redactSecrets(url: string, secretNames: readonly string[]): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const secrets = new Set(secretNames.map(comparableName));
  const pairs = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const nameEnd = pair.indexOf('=');
      const rawName = nameEnd === -1 ? pair : pair.slice(0, nameEnd);
      return secrets.has(comparableName(rawName)) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, queryStart + 1)}${pairs.join('&')}`;
}

/**
 * One JSON log line per request (probes excepted), carrying the request id nginx set (or a new
 * one), echoed as `X-Request-Id`. No header but the user agent is logged, and secret query
 * parameters are redacted: credentials never reach a log.
 */
export function requestLogging(logger: Logger, secretNames: readonly string[]): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    autoLogging: { ignore: (req) => PROBES.has(req.url ?? '') },
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string; headers: Record<string, unknown> }) => ({
        id: req.id,
        method: req.method,
        url: redactSecrets(req.url, secretNames),
        remoteAddress: req.remoteAddress,
        userAgent: req.headers['user-agent'],
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}
