import { badParameter } from '../errors/app-error';

/**
 * Request parsing for the directory API: raw query values in, typed values out, a 400 for anything
 * malformed. Express 5's simple query parser yields string | string[]; a repeated parameter is
 * refused, not guessed.
 */
export type RawQuery = Record<string, unknown>;

export const TOOLS_DEFAULT_LIMIT = 20;
export const TOOLS_MAX_LIMIT = 100;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 50;
/** Longest search keyword accepted; longer input is a 400, not a slow query. */
export const MAX_QUERY_LENGTH = 100;

// C0 controls (NUL included) and lone surrogates cannot be meaningful in a keyword or slug, and NUL cannot be stored in Postgres text.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function optionalString(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badParameter(`${name} 只能出现一次`);
  return value;
}

/** A positive integer parameter: absent → fallback; empty, anything but digits, or < 1 → 400; over 9 digits → 400. */
function positiveInt(query: RawQuery, name: string, fallback: number): number {
  const raw = optionalString(query, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw badParameter(`${name} 必须是正整数`);
  if (raw.length > 9) throw badParameter(`${name} 超出范围`);
  return Number(raw);
}

/** A page size: absent → fallback; not an integer ≥ 1 → 400; above `max` (however many digits) → `max`. */
function pageSize(query: RawQuery, fallback: number, max: number): number {
  const raw = optionalString(query, 'limit');
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw badParameter('limit 必须是正整数');
  return Math.min(Number(raw), max);
}

export interface PageRequest {
  page: number;
  limit: number;
}

function pageRequest(query: RawQuery): PageRequest {
  return { page: positiveInt(query, 'page', 1), limit: pageSize(query, TOOLS_DEFAULT_LIMIT, TOOLS_MAX_LIMIT) };
}

/** The API key as presented: the `X-API-Key` header wins over `api_key`; a repeated `api_key` is no valid key (''). */
export function presentedApiKey(header: string | undefined, query: RawQuery): string | undefined {
  if (header !== undefined && header !== '') return header;
  const fromQuery = query.api_key;
  if (fromQuery === undefined) return undefined;
  return typeof fromQuery === 'string' ? fromQuery : '';
}

export function parseAction(query: RawQuery): string {
  const action = optionalString(query, 'action');
  if (action === undefined || action === '') throw badParameter('缺少 action');
  return action;
}

export function parseToolListQuery(query: RawQuery): PageRequest & { categoryId?: number } {
  const page = pageRequest(query);
  // At most 9 digits, so always within Postgres integer range.
  const categoryId = optionalString(query, 'category_id') === undefined ? undefined : positiveInt(query, 'category_id', 0);
  return { ...page, categoryId };
}

/** The slug (or id) of a tool; whether it can exist at all is the service's business. */
export function parseToolSlug(query: RawQuery): string {
  const slug = optionalString(query, 'slug');
  if (slug === undefined || slug.trim() === '') throw badParameter('slug 不能为空');
  return slug;
}

/** Why a (trimmed) search keyword cannot be searched, or null; the website asks the same of its search box. */
export function keywordProblem(keyword: string): 'too-long' | 'invalid-characters' | null {
  if ([...keyword].length > MAX_QUERY_LENGTH) return 'too-long';
  if (CONTROL_CHARACTERS.test(keyword) || LONE_SURROGATE.test(keyword)) return 'invalid-characters';
  return null;
}

export function parseSearchQuery(query: RawQuery): PageRequest & { keyword: string } {
  const raw = optionalString(query, 'q');
  if (raw === undefined || raw.trim() === '') throw badParameter('q 不能为空');
  const keyword = raw.trim();
  const problem = keywordProblem(keyword);
  if (problem === 'too-long') throw badParameter(`q 长度不能超过 ${MAX_QUERY_LENGTH} 个字符`);
  if (problem === 'invalid-characters') throw badParameter('q 包含非法字符');
  return { keyword, page: positiveInt(query, 'page', 1), limit: pageSize(query, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT) };
}

export function parseCategoryQuery(query: RawQuery): PageRequest & { id: number } {
  const idRaw = optionalString(query, 'id');
  if (idRaw === undefined || idRaw === '') throw badParameter('id 不能为空');
  const id = positiveInt(query, 'id', 0);
  return { id, ...pageRequest(query) };
}

export function parseAdsType(query: RawQuery): 'ads' {
  const type = optionalString(query, 'type');
  if (type === undefined || type === '') throw badParameter('type 不能为空');
  if (type !== 'ads') throw badParameter('type 只支持 ads');
  return type;
}
