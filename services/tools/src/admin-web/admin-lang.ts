import { AsyncLocalStorage } from 'node:async_hooks';
import { serialize as serializeCookie } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import { cookieOf } from './admin-session';

/**
 * The admin's language: Chinese (the directory's own) or English. An editor's pick (the switch in the
 * header, kept in a cookie) wins; without one, the browser's Accept-Language decides, and Chinese is the
 * default. Every admin text table (admin-text.ts and the others) holds both languages under the same keys
 * and answers in the language of the request being served, read from async context: the pages and
 * helpers keep naming `T.save`, and a page rendered outside a request (none today) is Chinese.
 */
export type AdminLang = 'zh' | 'en';

export const ADMIN_LANG_COOKIE = 'tools_admin_lang';

const current = new AsyncLocalStorage<AdminLang>();

/** The language of the request being served. */
export function adminLang(): AdminLang {
  return current.getStore() ?? 'zh';
}

/** The <html lang> of a language. */
export const htmlLangOf = (lang: AdminLang) => (lang === 'en' ? 'en' : 'zh-CN');

/** Chinese or English by Accept-Language's weights (the first of the two with the highest q; Chinese on a tie or none). */
export function preferredByHeader(header: string | undefined): AdminLang {
  let best: { lang: AdminLang; q: number } | undefined;
  for (const part of (header ?? '').split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const lang: AdminLang | undefined = range === 'zh' || range.startsWith('zh-') ? 'zh' : range === 'en' || range.startsWith('en-') ? 'en' : undefined;
    if (!lang) continue;
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { lang, q };
  }
  return best?.lang ?? 'zh';
}

export function requestLang(req: Request): AdminLang {
  const chosen = cookieOf(req, ADMIN_LANG_COOKIE);
  return chosen === 'en' || chosen === 'zh' ? chosen : preferredByHeader(req.headers['accept-language']);
}

/**
 * Middleware: serves the rest of the request in its language. Used again after each body parser: a parser
 * calls `next` from the request stream's events, outside the context entered before it.
 */
export function enterAdminLang(req: Request, res: Response, next: NextFunction): void {
  const lang = requestLang(req);
  res.locals.adminLang = lang;
  res.vary('Accept-Language');
  current.run(lang, next);
}

/** Keeps the editor's pick for a year (a preference, not a secret: readable on every admin path). */
export function setLangCookie(req: Request, res: Response, lang: AdminLang): void {
  res.append('Set-Cookie', serializeCookie(ADMIN_LANG_COOKIE, lang, { httpOnly: true, sameSite: 'lax', path: '/admin', secure: req.secure, maxAge: 365 * 24 * 3600 }));
}

/**
 * A text table in both languages whose properties answer in the request's language. `en` must have
 * every key of `zh` (the compiler checks it where the table is made).
 */
export function bilingual<T extends object>(tables: { zh: T; en: T }): T {
  return new Proxy(tables.zh, {
    get(_target, key) {
      return Reflect.get(tables[adminLang()], key);
    },
  });
}
