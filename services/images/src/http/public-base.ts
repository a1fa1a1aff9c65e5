import type { NextFunction, Request, Response } from 'express';
import { parseHost, type AllowedHost } from '../allowed-hosts';

/**
 * Links that follow the request's host, when the operator allowed that host (`PUBLIC_HOSTS`).
 *
 * Every link the service hands out (image and thumbnail URLs, deletion links, share links, public
 * image pages, the compatibility APIs' links, client configs) is built on `PUBLIC_BASE_URL`. A request
 * that reached the service under one of the allowed hosts (its `Host`, or `X-Forwarded-Host` and
 * `X-Forwarded-Proto` from a trusted proxy, see `TRUSTED_PROXIES`) gets those links on its own origin
 * instead: a phone opening `http://192.168.1.5:8080/app/` sees images under `http://192.168.1.5:8080/i/`.
 * Any other host (a forged `Host` included) gets the configured base, never its own: a host header
 * cannot plant a link to somewhere else in an answer, a share page or a cached config.
 *
 * The signatures in links name ids, never hosts, so a link is valid under every allowed host.
 */

/** The base URL this request's links are built on: its own origin when its host is allowed, else null. */
export function requestBaseUrl(req: Pick<Request, 'host' | 'protocol'>, allowed: readonly AllowedHost[], configuredBase: string): string | null {
  if (allowed.length === 0) return null;
  const raw = req.host;
  if (typeof raw !== 'string' || raw === '') return null;
  const host = parseHost(raw);
  if (!host) return null;
  const permitted = allowed.some((entry) => entry.hostname === host.hostname && (entry.port === null || entry.port === host.port));
  if (!permitted) return null;
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  const base = new URL(configuredBase);
  const path = base.pathname.replace(/\/+$/, '');
  return `${protocol}://${host.hostname}${host.port === null ? '' : `:${host.port}`}${path}`;
}

/**
 * The middleware: when the request's host is allowed and differs from the configured base, every
 * text answer (the JSON envelopes and the server pages) has its links moved onto the request's base.
 */
export function followAllowedHost(options: { publicBaseUrl: string; allowedHosts: readonly AllowedHost[] }) {
  const configured = `${options.publicBaseUrl}/`;
  return (req: Request, res: Response, next: NextFunction) => {
    const base = requestBaseUrl(req, options.allowedHosts, options.publicBaseUrl);
    if (base !== null && `${base}/` !== configured) {
      const rebased = `${base}/`;
      const send = res.send.bind(res);
      res.send = (body?: unknown) => send(typeof body === 'string' ? body.split(configured).join(rebased) : body);
    }
    next();
  };
}
