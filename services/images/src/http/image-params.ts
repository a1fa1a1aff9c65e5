import { z } from 'zod';
import { categoryNameSchema } from '../categories/category-name';
import { AppError } from '../errors/app-error';
import type { MessageKey } from '../errors/messages';
import { BULK_MAX_IDS } from '../images/bulk-service';
import { LIST_MAX_LIMIT } from '../images/listing-repository';

/**
 * Request parsing for the image API: raw query and body values in, typed values out, `参数错误`
 * (or the action's own message) for anything malformed.
 */
export type RawFields = Record<string, unknown>;

/**
 * Who may call an action: anyone (`public`), any credential of a user (`token`: the account token, a
 * named token or a session), a signed-in session only (`session`: the account area, where a token must
 * not be able to read or replace itself), or an admin's session (`admin`).
 */
export type Access = 'public' | 'token' | 'session' | 'admin';

export const ACTIONS = {
  upload: { method: 'POST', access: 'token' },
  list: { method: 'GET', access: 'token' },
  delete: { method: 'POST', access: 'token' },
  trash: { method: 'GET', access: 'token' },
  restore: { method: 'POST', access: 'token' },
  purge: { method: 'POST', access: 'token' },
  move: { method: 'POST', access: 'token' },
  rename: { method: 'POST', access: 'token' },
  set_expiry: { method: 'POST', access: 'token' },
  categories: { method: 'GET', access: 'token' },
  create_category: { method: 'POST', access: 'token' },
  rename_category: { method: 'POST', access: 'token' },
  delete_category: { method: 'POST', access: 'token' },
  profile: { method: 'GET', access: 'token' },
  share_links: { method: 'GET', access: 'token' },
  create_share_link: { method: 'POST', access: 'token' },
  revoke_share_link: { method: 'POST', access: 'token' },
  image_page: { method: 'GET', access: 'token' },
  set_image_page: { method: 'POST', access: 'token' },
  set_album_pages: { method: 'POST', access: 'token' },
  features: { method: 'GET', access: 'public' },
  login: { method: 'POST', access: 'public' },
  register: { method: 'POST', access: 'public' },
  logout: { method: 'POST', access: 'session' },
  token: { method: 'GET', access: 'session' },
  reset_token: { method: 'POST', access: 'session' },
  tokens: { method: 'GET', access: 'session' },
  create_token: { method: 'POST', access: 'session' },
  revoke_token: { method: 'POST', access: 'session' },
  change_password: { method: 'POST', access: 'session' },
  client_config: { method: 'POST', access: 'session' },
  admin_users: { method: 'GET', access: 'admin' },
  admin_create_user: { method: 'POST', access: 'admin' },
  admin_update_user: { method: 'POST', access: 'admin' },
  admin_groups: { method: 'GET', access: 'admin' },
  admin_create_group: { method: 'POST', access: 'admin' },
  admin_update_group: { method: 'POST', access: 'admin' },
  admin_ban_uploads: { method: 'POST', access: 'admin' },
  admin_images: { method: 'GET', access: 'admin' },
  admin_bin_images: { method: 'POST', access: 'admin' },
  admin_purge_images: { method: 'POST', access: 'admin' },
  admin_settings: { method: 'GET', access: 'admin' },
  admin_update_settings: { method: 'POST', access: 'admin' },
} as const satisfies Record<string, { method: 'GET' | 'POST'; access: Access }>;

export type ActionName = keyof typeof ACTIONS;

export const LIST_DEFAULT_LIMIT = 20;
const ID_MAX = Number.MAX_SAFE_INTEGER;
const PAGE_MAX = 2_147_483_647;

/** Request values arrive as strings (query, form) or, from JSON bodies, as numbers. */
const positiveInt = (max: number) =>
  z
    .union([z.string().regex(/^\s*[1-9]\d{0,15}\s*$/).transform((text) => Number(text.trim())), z.number().int()])
    .pipe(z.number().int().min(1).max(max));

// Built once: a zod schema is costly to build, and these run on every request.
const imageIdSchema = positiveInt(ID_MAX);
const pageSchema = positiveInt(PAGE_MAX);
const keywordSchema = z.string().max(255);
const idempotencyKeySchema = z.string().regex(/^[\x21-\x7e]{1,255}$/);

/** Any integer ≥ 1, however many digits: an oversized limit is clamped, never refused. */
const clampedLimit = z
  .string()
  .regex(/^\s*[1-9]\d*\s*$/)
  .transform((text) => Math.min(Number(text.trim()), LIST_MAX_LIMIT));

function parseOr<T>(schema: z.ZodType<T>, value: unknown, refusal: MessageKey = 'badParameter'): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError(refusal, 200);
  return parsed.data;
}

/** The action, if `method` may call it; anything else is `不支持的操作` (so a prefetch never deletes). */
export function parseAction(query: RawFields, method: string): ActionName {
  const action = query.action;
  if (typeof action !== 'string' || !Object.hasOwn(ACTIONS, action)) throw new AppError('unknownAction', 200);
  const name = action as ActionName;
  if (ACTIONS[name].method !== (method === 'HEAD' ? 'GET' : method)) throw new AppError('unknownAction', 200);
  return name;
}

/**
 * The token of the first source that is present, header > query > body. A present source is used even
 * when unusable (a repeated `token` parameter arrives as an array): it then fails, never falling back.
 */
export function presentedToken(...sources: unknown[]): { present: boolean; token: string | undefined } {
  for (const value of sources) {
    if (value === undefined || value === '') continue;
    return { present: true, token: typeof value === 'string' ? value : undefined };
  }
  return { present: false, token: undefined };
}

export function fieldsOf(body: unknown): RawFields {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as RawFields) : {};
}

/** A value given in the body wins over the same name in the query (delete, restore, purge, create_category). */
export function bodyOrQuery(body: RawFields, query: RawFields, name: string): unknown {
  return body[name] !== undefined ? body[name] : query[name];
}

export function parseId(value: unknown): number {
  return parseOr(imageIdSchema, value);
}

/** An optional id (category_id, group_id): absent or empty means none. */
export function parseOptionalId(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  return parseOr(imageIdSchema, value);
}

export interface PageQuery {
  page: number;
  limit: number;
  categoryId?: number;
  keyword?: string;
}

/**
 * `links=1` asks a list page for each item's `links` (the extension); absent, empty or `0`, the items
 * carry the contract's fields only.
 */
export function parseLinksFlag(value: unknown): boolean {
  if (value === undefined || value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new AppError('badParameter', 200);
}

export function parsePageQuery(query: RawFields): PageQuery {
  const page = query.page === undefined ? 1 : parseOr(pageSchema, query.page);
  // data.limit tells the client what was used.
  const limit = query.limit === undefined ? LIST_DEFAULT_LIMIT : parseOr(clampedLimit, query.limit);
  const categoryId = parseOptionalId(query.category_id);
  let keyword: string | undefined;
  if (query.keyword !== undefined) {
    keyword = parseOr(keywordSchema, query.keyword).trim();
    // Stored names never hold control characters, and Postgres refuses NUL in text outright.
    if (/\p{Cc}/u.test(keyword)) throw new AppError('badParameter', 200);
    if (keyword === '') keyword = undefined;
  }
  return { page, limit, categoryId, keyword };
}

export function parseCategoryName(value: unknown): string {
  return parseOr(categoryNameSchema, value);
}

export function parseIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return parseOr(idempotencyKeySchema, value);
}

/** The id and signature of a signed link (thumbnail, deletion); null when they cannot name one (answered 404). */
export function parseSignedLink(query: RawFields): { id: number; sig: string } | null {
  const { id, sig } = query;
  if (typeof id !== 'string' || typeof sig !== 'string' || !/^[1-9]\d{0,15}$/.test(id)) return null;
  const parsed = Number(id);
  return Number.isSafeInteger(parsed) ? { id: parsed, sig } : null;
}

/** `ids`: a JSON array, a comma-separated list, or the parameter repeated; 1 to 1000 positive integers. */
export function parseIds(value: unknown): number[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : typeof value === 'number' ? [value] : [];
  if (items.length === 0) throw new AppError('badParameter', 200);
  if (items.length > BULK_MAX_IDS) throw new AppError('tooManyIds', 200);
  return items.map((item) => parseId(item));
}

/** The target of delete/restore/purge: one `id` (the contract's form) or many `ids` (the bulk extension), not both. */
export function parseIdOrIds(body: RawFields, query: RawFields): { id: number } | { ids: number[] } {
  const id = bodyOrQuery(body, query, 'id');
  const ids = bodyOrQuery(body, query, 'ids');
  if (ids !== undefined && id !== undefined) throw new AppError('badParameter', 200);
  return ids !== undefined ? { ids: parseIds(ids) } : { id: parseId(id) };
}

/** A text field from the body only: passwords and names never travel in a URL. */
export function bodyText(body: RawFields, name: string, max = 1024): string {
  return parseOr(z.string().max(max), body[name] ?? '');
}

export function parseOptionalBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw new AppError('badParameter', 200);
}

/** A required flag: `1`/`true` or `0`/`false` (a JSON body's numbers too). */
export function parseBoolean(value: unknown): boolean {
  const flag = parseOptionalBoolean(value === 1 ? true : value === 0 ? false : value);
  if (flag === undefined) throw new AppError('badParameter', 200);
  return flag;
}

/** An optional whole number from 1 to `max` (hours until a share link expires, its view limit); absent or empty is none. */
export function parseOptionalCount(value: unknown, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  return parseOr(positiveInt(max), value);
}

/** A byte count: a whole number ≥ 0 (as digits, or a JSON number). */
export function parseOptionalBytes(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  return parseOr(z.union([z.string().regex(/^\s*\d{1,16}\s*$/).transform((text) => Number(text.trim())), z.number().int()]).pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)), value);
}

/** A calendar day, YYYY-MM-DD (a real one); absent or empty: none. */
export function parseOptionalDay(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new AppError('badParameter', 200);
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) throw new AppError('badParameter', 200);
  return value;
}

/** An optional text (a filter's name): absent or empty after trimming means none; control characters are refused. */
export function parseOptionalText(value: unknown, max: number): string | undefined {
  if (value === undefined) return undefined;
  const text = parseOr(z.string().max(max), value).trim();
  if (/\p{Cc}/u.test(text)) throw new AppError('badParameter', 200);
  return text === '' ? undefined : text;
}

export function parseUploadClient(value: unknown): 'sharex' | 'picgo' {
  if (value === 'sharex' || value === 'picgo') return value;
  throw new AppError('badParameter', 200);
}

/** A name for a named token: as a category name, 1-64 characters without control characters. */
export function parseTokenName(value: unknown): string {
  return parseOr(categoryNameSchema, value);
}

/** The nearest and farthest an expiry may be: the job runs every minute, and ten years is "keep it". */
export const EXPIRY_MIN_SECONDS = 60;
export const EXPIRY_MAX_SECONDS = 10 * 365 * 24 * 60 * 60;

const expiresInSchema = z.union([z.string().regex(/^\s*\d{1,12}\s*$/).transform((text) => Number(text.trim())), z.number().int().nonnegative()]);
const expiresAtSchema = z.iso.datetime({ offset: true });

/**
 * An image's expiry from `expires_in` (whole seconds from now) or `expires_at` (an ISO 8601 time with
 * its zone, `Z` or `+08:00`), one of the two; both absent or empty: none. Between 1 minute and 10
 * years from `now`. Refused with the message saying which rule failed.
 */
export function parseExpiry(expiresIn: unknown, expiresAt: unknown, now: Date): Date | undefined {
  const givenIn = expiresIn !== undefined && expiresIn !== '';
  const givenAt = expiresAt !== undefined && expiresAt !== '';
  if (givenIn && givenAt) throw new AppError('expiryTwice', 200);
  let at: Date;
  if (givenIn) {
    at = new Date(now.getTime() + parseOr(expiresInSchema, expiresIn, 'expiryInvalid') * 1000);
  } else if (givenAt) {
    at = new Date(parseOr(expiresAtSchema, typeof expiresAt === 'string' ? expiresAt.trim() : expiresAt, 'expiryInvalid'));
    if (Number.isNaN(at.getTime())) throw new AppError('expiryInvalid', 200);
  } else {
    return undefined;
  }
  const seconds = (at.getTime() - now.getTime()) / 1000;
  if (!(seconds >= EXPIRY_MIN_SECONDS && seconds <= EXPIRY_MAX_SECONDS)) throw new AppError('expiryOutOfRange', 200);
  return at;
}
