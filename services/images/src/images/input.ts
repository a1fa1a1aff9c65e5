import { z } from 'zod';
import { AppError } from '../http/app-error';
import { Messages } from '../http/messages';

/** Request values arrive as strings (query, form) or, from JSON bodies, as numbers. */
const positiveInt = (max: number) =>
  z
    .union([z.string().regex(/^\s*[1-9]\d{0,15}\s*$/).transform((text) => Number(text.trim())), z.number().int()])
    .pipe(z.number().int().min(1).max(max));

const ID_MAX = Number.MAX_SAFE_INTEGER;
const PAGE_MAX = 2_147_483_647;

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;

function parseOr<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppError(Messages.badParameter);
  return parsed.data;
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

/** Any integer ≥ 1, however many digits: an oversized limit is clamped, never refused. */
const clampedLimit = z
  .string()
  .regex(/^\s*[1-9]\d*\s*$/)
  .transform((text) => Math.min(Number(text.trim()), LIST_MAX_LIMIT));

export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  const page = query.page === undefined ? 1 : parseOr(positiveInt(PAGE_MAX), query.page);
  // data.limit tells the client what was used.
  const limit = query.limit === undefined ? LIST_DEFAULT_LIMIT : parseOr(clampedLimit, query.limit);
  const categoryId = parseOptionalCategoryId(query.category_id);
  let keyword: string | undefined;
  if (query.keyword !== undefined) {
    keyword = parseOr(z.string().max(255), query.keyword).trim();
    // Stored names never hold control characters, and Postgres refuses NUL in text outright.
    if (/\p{Cc}/u.test(keyword)) throw new AppError(Messages.badParameter);
    if (keyword === '') keyword = undefined;
  }
  return { page, limit, categoryId, keyword };
}

/** A category name, from the API or the admin CLI alike. */
export const categoryNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  // Cs matches only lone surrogates, which would be stored as U+FFFD, unlike what the client sent.
  .refine((name) => !/[\p{Cc}\p{Cs}]/u.test(name));

export function parseCategoryName(value: unknown): string {
  return parseOr(categoryNameSchema, value);
}

export function parseIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return parseOr(z.string().regex(/^[\x21-\x7e]{1,255}$/), value);
}

/** The client's file name is data only: keep the last path segment, drop control characters, cap the length. */
export function cleanOriginalName(name: string, fallbackExtension: string): string {
  const lastSegment = name.split(/[\\/]/).pop() ?? '';
  const cleaned = lastSegment.replace(/\p{Cc}/gu, '').trim();
  const capped = Array.from(cleaned).slice(0, 255).join('');
  return capped === '' ? `image.${fallbackExtension}` : capped;
}
