import type { CategorySort } from './site-queries';
import type { Lang } from './site-text';

/** What a page shows; its URL in either language follows from it (links, canonical, hreflang). */
export type PageLocation =
  | { kind: 'home' }
  | { kind: 'category'; slug: string; page: number; sort?: CategorySort }
  | { kind: 'tag'; tag: string; page: number; sort?: CategorySort }
  | { kind: 'tool'; slug: string }
  | { kind: 'search'; keyword: string; page: number }
  | { kind: 'submit' | 'submitted' };

const prefix = (lang: Lang) => (lang === 'en' ? '/en' : '');

/** The default sort (popular) is not written in the URL: one address per page. */
export const DEFAULT_SORT: CategorySort = 'popular';

function withQuery(path: string, page: number, sort: CategorySort = DEFAULT_SORT): string {
  const query = new URLSearchParams();
  if (sort !== DEFAULT_SORT) query.set('sort', sort);
  if (page > 1) query.set('page', String(page));
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The site-relative URL of a page in `lang`: Chinese at the root, English under /en/. */
export function pageUrl(lang: Lang, location: PageLocation): string {
  switch (location.kind) {
    case 'home':
      return lang === 'en' ? '/en/' : '/';
    case 'category':
      return withQuery(`${prefix(lang)}/category/${encodeURIComponent(location.slug)}`, location.page, location.sort);
    case 'tag':
      return withQuery(`${prefix(lang)}/tag/${encodeURIComponent(location.tag)}`, location.page, location.sort);
    case 'tool':
      return `${prefix(lang)}/tool/${encodeURIComponent(location.slug)}`;
    case 'submit':
      return `${prefix(lang)}/submit`;
    case 'submitted':
      return `${prefix(lang)}/submit/thanks`;
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
