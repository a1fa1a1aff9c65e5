import { BASE, hrefOf, routeOf } from './router';

/**
 * Picking up after the session ended: the sign-in page's URL carries where the user was (`next`, a
 * path + query of the app) and why they are there (`ended`); signing in again goes back there, and
 * what they had typed into the page's fields (kept for this tab in sessionStorage) is put back.
 */

/** The sign-in page for a visitor who was at `here` (path + query); `ended` when their session just ended. */
export function signInHrefFrom(here: string, ended: boolean): string {
  const params = new URLSearchParams();
  if (here !== BASE) params.set('next', here);
  if (ended) params.set('ended', '1');
  const search = params.toString();
  return hrefOf('sign-in') + (search ? `?${search}` : '');
}

/** Where signing in leads: the `next` of the sign-in URL when it is a page of the app (never another site, never sign-in again), else the gallery. */
export function returnPathOf(search: string): string {
  const next = new URLSearchParams(search).get('next');
  if (!next || !next.startsWith(BASE) || next.startsWith('//')) return hrefOf('gallery');
  const route = routeOf(new URL(next, location.origin).pathname);
  return route === 'sign-in' || route === 'register' || route === 'not-found' ? hrefOf('gallery') : next;
}

const DRAFT_KEY = 'imagehost.draft';
/** How long a page that loads its forms after its data is given to show the fields again. */
const RESTORE_WINDOW_MS = 5000;

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
interface Draft {
  user: string;
  path: string;
  fields: Array<{ key: string; value: string }>;
}

function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** Which field this is, by what a person reads beside it (its label), counted among fields read the same. */
function fieldKeys(root: HTMLElement): Array<{ key: string; field: Field }> {
  const seen = new Map<string, number>();
  return [...root.querySelectorAll<Field>('input, textarea, select')]
    .filter((field) => !(field instanceof HTMLInputElement) || !['password', 'file', 'hidden', 'checkbox', 'radio', 'search'].includes(field.type))
    .filter((field) => !field.disabled && !(field instanceof HTMLSelectElement ? false : field.readOnly))
    .map((field) => {
      const read = field.labels?.[0]?.textContent?.trim() || field.getAttribute('aria-label') || field.getAttribute('placeholder') || field.name || field.tagName;
      const count = seen.get(read) ?? 0;
      seen.set(read, count + 1);
      return { key: `${read}#${count}`, field };
    });
}

/** Keeps what was typed on the page (not passwords or files) for `user`, at `path`. */
export function keepDraft(root: HTMLElement | null, user: string, path: string): void {
  if (!root) return;
  const fields = fieldKeys(root)
    .filter(({ field }) => field.value !== '' && (field instanceof HTMLSelectElement ? field.selectedIndex > 0 : true))
    .map(({ key, field }) => ({ key, value: field.value }));
  try {
    if (fields.length > 0) tabStorage()?.setItem(DRAFT_KEY, JSON.stringify({ user, path, fields } satisfies Draft));
  } catch {
    // nothing kept
  }
}

/** Sets a field as typing would (its page hears the input event), so the page's own state takes the value. */
function typeInto(field: Field, value: string): void {
  const prototype = field instanceof HTMLSelectElement ? HTMLSelectElement.prototype : field instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(prototype, 'value')?.set?.call(field, value);
  field.dispatchEvent(new Event('input', { bubbles: true }));
  field.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * Puts back what `user` had typed at `path` into the fields that are empty, as they appear (a page may
 * show its forms after loading), for a few seconds; the draft is used once.
 */
export function restoreDraft(root: HTMLElement | null, user: string, path: string): () => void {
  let draft: Draft | null = null;
  try {
    const raw = tabStorage()?.getItem(DRAFT_KEY);
    draft = raw ? (JSON.parse(raw) as Draft) : null;
  } catch {
    draft = null;
  }
  if (!root || !draft || draft.user !== user || draft.path !== path) return () => undefined;
  tabStorage()?.removeItem(DRAFT_KEY);
  const pending = new Map(draft.fields.map((field) => [field.key, field.value]));
  const fill = () => {
    for (const { key, field } of fieldKeys(root)) {
      const value = pending.get(key);
      if (value === undefined) continue;
      if (field.value === '' || (field instanceof HTMLSelectElement && field.selectedIndex <= 0)) typeInto(field, value);
      pending.delete(key);
    }
    if (pending.size === 0) stop();
  };
  const observer = new MutationObserver(fill);
  const timer = window.setTimeout(() => stop(), RESTORE_WINDOW_MS);
  const stop = () => {
    observer.disconnect();
    window.clearTimeout(timer);
  };
  observer.observe(root, { childList: true, subtree: true });
  fill();
  return stop;
}
