import type { Fetcher } from '../outbound/fetcher';
import { OutboundError, type OutboundFailure } from '../outbound/outbound-error';

export type LinkStatus = 'ok' | 'broken' | 'unknown';

export interface LinkProbe {
  status: LinkStatus;
  /** Short and stable, for reports and filters: http_404, dns, refused, blocked, timeout, ... */
  reason: string;
  httpStatus: number | null;
  durationMs: number;
}

/** Answers that mean "the site does not let robots look", not "the page is gone". */
const BLOCKING_STATUSES = new Set([401, 403, 429, 451, 999]);

const FAILURE_VERDICTS: Record<OutboundFailure, [LinkStatus, string]> = {
  dns: ['broken', 'dns'],
  refused: ['broken', 'refused'],
  'blocked-address': ['broken', 'private_address'],
  'bad-url': ['broken', 'bad_url'],
  tls: ['broken', 'tls'],
  'too-many-redirects': ['broken', 'redirect_loop'],
  timeout: ['unknown', 'timeout'],
  'too-large': ['ok', 'ok'],
  network: ['unknown', 'network'],
};

function verdictOf(status: number, headers: Record<string, string>): [LinkStatus, string] {
  if (status >= 200 && status < 400) return ['ok', 'ok'];
  if (status === 404 || status === 410) return ['broken', `http_${status}`];
  // Cloudflare and the like answer a robot with a challenge page: a wall, not a verdict on the page.
  if (BLOCKING_STATUSES.has(status) || headers['cf-mitigated'] === 'challenge' || /captcha/i.test(headers['x-amzn-waf-action'] ?? '')) return ['unknown', 'blocked'];
  return ['unknown', `http_${status}`];
}

/**
 * One look at a link: HEAD first (no body), then GET when HEAD is refused or answered oddly (many
 * servers mishandle HEAD); the GET's body is dropped unread. All through the one SSRF-safe fetcher.
 */
export async function probeLink(fetcher: Fetcher, url: string, now: () => number = Date.now): Promise<LinkProbe> {
  const started = now();
  const finish = ([status, reason]: [LinkStatus, string], httpStatus: number | null): LinkProbe => ({ status, reason, httpStatus, durationMs: Math.max(0, Math.round(now() - started)) });
  try {
    const head = await fetcher.fetch({ url, method: 'HEAD', maxBytes: 0, readBody: false, accept: 'text/html,*/*;q=0.8' });
    const headVerdict = verdictOf(head.status, head.headers);
    if (headVerdict[0] === 'ok') return finish(headVerdict, head.status);
  } catch (error) {
    // Only a garbled answer to HEAD is worth a GET: a site that is down, slow or refused answers no GET either.
    if (error instanceof OutboundError && error.failure !== 'network') return finish(FAILURE_VERDICTS[error.failure], null);
  }
  try {
    const get = await fetcher.fetch({ url, method: 'GET', maxBytes: 1, readBody: false, accept: 'text/html,*/*;q=0.8' });
    return finish(verdictOf(get.status, get.headers), get.status);
  } catch (error) {
    if (error instanceof OutboundError) return finish(FAILURE_VERDICTS[error.failure], null);
    throw error;
  }
}
