import { useEffect, useState } from 'preact/hooks';

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

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new PopStateEvent('popstate'));
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
