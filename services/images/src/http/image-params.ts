import { z } from 'zod';
import { categoryNameSchema } from '../categories/category-name';
import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';

/**
 * Request parsing for the image API: raw query and body values in, typed values out, `参数错误`
 * (or the action's own message) for anything malformed.
 */
export type RawFields = Record<string, unknown>;

export type ActionName = 'upload' | 'list' | 'delete' | 'trash' | 'restore' | 'purge' | 'categories' | 'create_category' | 'profile';

const ACTION_METHODS: Record<ActionName, 'GET' | 'POST'> = {
  upload: 'POST',
  list: 'GET',
  delete: 'POST',
  trash: 'GET',
  restore: 'POST',
  purge: 'POST',
  categories: 'GET',
  create_category: 'POST',
  profile: 'GET',
};

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;
const ID_MAX = Number.MAX_SAFE_INTEGER;
const PAGE_MAX = 2_147_483_647;

/** Request values arrive as strings (query, form) or, from JSON bodies, as numbers. */
const positiveInt = (max: number) =>
  z
    .union([z.string().regex(/^\s*[1-9]\d{0,15}\s*$/).transform((text) => Number(text.trim())), z.number().int()])
    .pipe(z.number().int().min(1).max(max));

/** Any integer ≥ 1, however many digits: an oversized limit is clamped, never refused. */
const clampedLimit = z
  .string()
  .regex(/^\s*[1-9]\d*\s*$/)
  .transform((text) => Math.min(Number(text.trim()), LIST_MAX_LIMIT));

function parseOr<T>(schema: z.ZodType<T>, value: unknown, message = Messages.badParameter): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError(message, 200);
  return parsed.data;
}

/** The action, if `method` may call it; anything else is `不支持的操作` (so a prefetch never deletes). */
export function parseAction(query: RawFields, method: string): ActionName {
  const action = query.action;
  if (typeof action !== 'string' || !Object.hasOwn(ACTION_METHODS, action)) throw new AppError(Messages.unknownAction, 200);
  const name = action as ActionName;
  if (ACTION_METHODS[name] !== (method === 'HEAD' ? 'GET' : method)) throw new AppError(Messages.unknownAction, 200);
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
  return parseOr(positiveInt(ID_MAX), value);
}

export function parseOptionalCategoryId(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  return parseOr(positiveInt(ID_MAX), value);
}

export interface PageQuery {
  page: number;
  limit: number;
  categoryId?: number;
  keyword?: string;
}

export function parsePageQuery(query: RawFields): PageQuery {
  const page = query.page === undefined ? 1 : parseOr(positiveInt(PAGE_MAX), query.page);
  // data.limit tells the client what was used.
  const limit = query.limit === undefined ? LIST_DEFAULT_LIMIT : parseOr(clampedLimit, query.limit);
  const categoryId = parseOptionalCategoryId(query.category_id);
  let keyword: string | undefined;
  if (query.keyword !== undefined) {
    keyword = parseOr(z.string().max(255), query.keyword).trim();
    // Stored names never hold control characters, and Postgres refuses NUL in text outright.
    if (/\p{Cc}/u.test(keyword)) throw new AppError(Messages.badParameter, 200);
    if (keyword === '') keyword = undefined;
  }
  return { page, limit, categoryId, keyword };
}

export function parseCategoryName(value: unknown): string {
  return parseOr(categoryNameSchema, value);
}

export function parseIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return parseOr(z.string().regex(/^[\x21-\x7e]{1,255}$/), value);
}

/** The id and signature of a thumbnail request; null when they cannot name a thumbnail (answered 404). */
export function parseThumbRequest(query: RawFields): { id: number; sig: string } | null {
  const { id, sig } = query;
  if (typeof id !== 'string' || typeof sig !== 'string' || !/^[1-9]\d{0,15}$/.test(id)) return null;
  const parsed = Number(id);
  return Number.isSafeInteger(parsed) ? { id: parsed, sig } : null;
}
