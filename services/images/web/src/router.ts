import { useEffect, useMemo, useState } from 'preact/hooks';

/** The app lives under /app/; each page is a path below it (nginx and the front door answer every one with index.html). */
export const BASE = '/app/';

export type RouteName = 'gallery' | 'upload' | 'bin' | 'categories' | 'account' | 'connect' | 'admin' | 'sign-in' | 'register' | 'not-found';

const PATHS: Record<Exclude<RouteName, 'not-found'>, string> = {
  gallery: '',
  upload: 'upload',
  bin: 'bin',
  categories: 'categories',
  account: 'account',
  connect: 'connect',
  admin: 'admin',
  'sign-in': 'sign-in',
  register: 'register',
};

export function hrefOf(route: Exclude<RouteName, 'not-found'>): string {
  return BASE + PATHS[route];
}

export function routeOf(pathname: string): RouteName {
  if (!pathname.startsWith(BASE)) return pathname === BASE.slice(0, -1) ? 'gallery' : 'not-found';
  const rest = pathname.slice(BASE.length).replace(/\/+$/, '');
  const found = (Object.keys(PATHS) as Array<keyof typeof PATHS>).find((name) => PATHS[name] === rest);
  return found ?? 'not-found';
}

export function navigate(href: string, options: { replace?: boolean; state?: unknown } = {}): void {
  if (href === location.pathname + location.search) return;
  if (options.replace) history.replaceState(options.state ?? null, '', href);
  else history.pushState(options.state ?? null, '', href);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The current URL's query, read again on every history change: a page's state kept in its URL (reload and share keep it). */
export function useUrlQuery(): URLSearchParams {
  const [search, setSearch] = useState(() => location.search);
  useEffect(() => {
    const update = () => setSearch(location.search);
    window.addEventListener('popstate', update);
    // A change between the first render and this listener (a redirect in the same update) is caught here.
    update();
    return () => window.removeEventListener('popstate', update);
  }, []);
  return useMemo(() => new URLSearchParams(search), [search]);
}

/**
 * Changes parameters of the current URL (null or '' removes one). It replaces the history entry
 * (typing a search makes no entries), or with `push` adds one (`state` marks it) for Back to undo.
 */
export function setUrlQuery(changes: Record<string, string | null>, options: { push?: boolean; state?: unknown } = {}): void {
  const params = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') params.delete(name);
    else params.set(name, value);
  }
  const search = params.toString();
  navigate(location.pathname + (search ? `?${search}` : ''), { replace: !options.push, state: options.push ? options.state : history.state });
}

export function useRoute(): RouteName {
  const [route, setRoute] = useState(() => routeOf(location.pathname));
  useEffect(() => {
    const update = () => setRoute(routeOf(location.pathname));
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return route;
}

/** A plain left click on an in-app link changes the page without a reload; anything else (new tab, modifier keys) is the browser's. */
export function followLink(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || anchor.target) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
