import { randomBytes } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Request, Response } from 'express';
import { sameToken, type EditorSession } from '../editors/editor-auth';

/** The session's cookie: HttpOnly, SameSite=Strict, only under /admin, Secure when the request came over https. */
export const SESSION_COOKIE = 'tools_editor';
/** The sign-in form's token (double-submit): a page on another site cannot post a sign-in either. */
export const SIGN_IN_COOKIE = 'tools_editor_form';

const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: 'strict' as const, path: '/admin', secure: req.secure });

export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parseCookies(header)[name] : undefined;
}

function appendCookie(res: Response, cookie: string): void {
  res.append('Set-Cookie', cookie);
}

export function setSessionCookie(req: Request, res: Response, token: string, expiresAt: Date): void {
  appendCookie(res, serializeCookie(SESSION_COOKIE, token, { ...cookieOptions(req), expires: expiresAt }));
}

export function clearCookie(req: Request, res: Response, name: string): void {
  appendCookie(res, serializeCookie(name, '', { ...cookieOptions(req), expires: new Date(0) }));
}

/** The sign-in form's token: the one the browser holds, or a new one set now. */
export function signInToken(req: Request, res: Response): string {
  const held = cookieOf(req, SIGN_IN_COOKIE);
  if (held && /^[A-Za-z0-9_-]{43}$/.test(held)) return held;
  const token = randomBytes(32).toString('base64url');
  appendCookie(res, serializeCookie(SIGN_IN_COOKIE, token, cookieOptions(req)));
  return token;
}

/** Whether a sign-in POST carries the token its cookie holds. */
export function signInTokenMatches(req: Request): boolean {
  const held = cookieOf(req, SIGN_IN_COOKIE);
  return held !== undefined && sameToken(held, (req.body as Record<string, unknown> | undefined)?.csrf);
}

/** Whether a signed-in POST carries its session's form token. */
export function sessionTokenMatches(req: Request, session: EditorSession): boolean {
  return sameToken(session.csrfToken, (req.body as Record<string, unknown> | undefined)?.csrf);
}

/** Where to go after signing in: only a path of the admin (never another site). */
export function safeNext(raw: unknown): string {
  return typeof raw === 'string' && /^\/admin\/[A-Za-z0-9/_?=&%.-]*$/.test(raw) && !raw.startsWith('//') ? raw : '/admin/tools';
}
