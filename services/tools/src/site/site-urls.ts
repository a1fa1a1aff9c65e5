import type { Lang } from './site-text';

/** What a page shows; its URL in either language follows from it (links, canonical, hreflang). */
export type PageLocation =
  | { kind: 'home' }
  | { kind: 'category'; slug: string; page: number }
  | { kind: 'tool'; slug: string }
  | { kind: 'search'; keyword: string; page: number };

const prefix = (lang: Lang) => (lang === 'en' ? '/en' : '');

function withPage(path: string, page: number): string {
  return page > 1 ? `${path}?page=${page}` : path;
}

/** The site-relative URL of a page in `lang`: Chinese at the root, English under /en/. */
export function pageUrl(lang: Lang, location: PageLocation): string {
  switch (location.kind) {
    case 'home':
      return lang === 'en' ? '/en/' : '/';
    case 'category':
      return withPage(`${prefix(lang)}/category/${encodeURIComponent(location.slug)}`, location.page);
    case 'tool':
      return `${prefix(lang)}/tool/${encodeURIComponent(location.slug)}`;
    case 'search': {
      const base = `${prefix(lang)}/search`;
      if (location.keyword === '') return base;
      const query = new URLSearchParams({ q: location.keyword });
      if (location.page > 1) query.set('page', String(location.page));
      return `${base}?${query.toString()}`;
    }
  }
}

/** The counted outbound link of a tool (one URL for both languages: it only redirects). */
export function visitUrl(slug: string): string {
  return `/go/${encodeURIComponent(slug)}`;
}

export function searchAction(lang: Lang): string {
  return `${prefix(lang)}/search`;
}
