import { badParameter } from './appError';

/** Express 5's simple query parser yields string | string[]; a repeated parameter is refused, not guessed. */
export type RawQuery = Record<string, unknown>;

export function optionalString(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badParameter(`${name} 只能出现一次`);
  return value;
}

/** A positive integer parameter: absent → fallback; empty, anything but digits, or < 1 → 400; over 9 digits → 400. */
export function positiveIntParam(query: RawQuery, name: string, fallback: number): number {
  const raw = optionalString(query, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw badParameter(`${name} 必须是正整数`);
  if (raw.length > 9) throw badParameter(`${name} 超出范围`);
  return Number(raw);
}

/** A page size: absent → fallback; not an integer ≥ 1 → 400; above `max` (however many digits) → `max`. */
export function limitParam(query: RawQuery, fallback: number, max: number): number {
  const raw = optionalString(query, 'limit');
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw badParameter('limit 必须是正整数');
  return Math.min(Number(raw), max);
}

export interface PageRequest {
  page: number;
  limit: number;
}

export function pageParams(query: RawQuery, defaultLimit: number, maxLimit: number): PageRequest {
  const page = positiveIntParam(query, 'page', 1);
  const limit = limitParam(query, defaultLimit, maxLimit);
  return { page, limit };
}

/** Largest value of a Postgres `integer` column: ids above it cannot exist (and must not reach SQL). */
export const MAX_DB_INT = 2147483647;
