import { keywordProblem, MAX_QUERY_LENGTH, type RawQuery } from '../http/directory-params';
import { CATEGORY_SORTS, type CategorySort } from './site-queries';
import type { Lang, SiteText } from './site-text';
import { DEFAULT_SORT } from './site-urls';

/** A request the website cannot answer as asked; `explain` gives the reason in the page's language. */
export class SiteBadRequest extends Error {
  constructor(readonly explain: (text: SiteText) => string) {
    super('bad website request');
    this.name = 'SiteBadRequest';
  }
}

/** The language of a website path: English under /en, Chinese everywhere else. */
export function langOfPath(path: string): Lang {
  return path === '/en' || path.startsWith('/en/') ? 'en' : 'zh';
}

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SiteBadRequest((text) => text.badRequestTitle);
  return value;
}

/** `page`: absent → 1; anything but 1-9 digits ≥ 1 → 400. */
export function parsePage(query: RawQuery): number {
  const raw = single(query, 'page');
  if (raw === undefined) return 1;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new SiteBadRequest((text) => text.badPage);
  return Number(raw);
}

/** `sort` of a category page: absent → popular; anything but a known sort → 400. */
export function parseSort(query: RawQuery): CategorySort {
  const raw = single(query, 'sort');
  if (raw === undefined) return DEFAULT_SORT;
  const known = CATEGORY_SORTS.find((sort) => sort === raw);
  if (!known) throw new SiteBadRequest((text) => text.badSort);
  return known;
}

/** The search box: an empty keyword is the search page without results; otherwise as the API checks it. */
export function parseSiteSearch(query: RawQuery): { keyword: string; page: number } {
  const keyword = (single(query, 'q') ?? '').trim();
  const problem = keywordProblem(keyword);
  if (problem === 'too-long') throw new SiteBadRequest((text) => text.keywordTooLong(String(MAX_QUERY_LENGTH)));
  if (problem === 'invalid-characters') throw new SiteBadRequest((text) => text.keywordInvalid);
  return { keyword, page: parsePage(query) };
}

/** A slug or id from the path, or null when it cannot name anything (the page is then a 404 without a query). */
export function parseReference(raw: string | undefined): string | null {
  if (raw === undefined || raw === '' || raw.length > 100 || /[\u0000-\u001f\u007f]/.test(raw)) return null;
  return raw;
}

// Crawlers, link previewers (chat apps unfurling a pasted link) and monitors: they follow /go/ links
// without anyone clicking. They still get the redirect, but no visit is counted.
const AUTOMATED_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|preview|facebookexternalhit|embedly|whatsapp|telegram|discord|slack|skype|linkedin|pinterest|vkshare|w3c_validator|feedfetcher|monitor|uptime|python-requests|go-http-client|wget|libwww/i;

/**
 * Whether a /go/ request is a visitor's click: a GET (a HEAD only checks the link), not a speculative
 * prefetch (`Sec-Purpose`/`Purpose: prefetch`), not from a known automated user agent.
 */
export function isCountableClick(request: { method: string; header(name: string): string | undefined }): boolean {
  if (request.method !== 'GET') return false;
  const purpose = `${request.header('sec-purpose') ?? ''} ${request.header('purpose') ?? ''} ${request.header('x-moz') ?? ''}`;
  if (/prefetch|prerender/i.test(purpose)) return false;
  return !AUTOMATED_AGENT.test(request.header('user-agent') ?? '');
}
