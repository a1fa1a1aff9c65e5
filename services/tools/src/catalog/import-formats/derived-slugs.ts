import { pinyin } from 'pinyin-pro';

/**
 * Slugs for rows whose source has none (bookmarks, OneNav): from a folder's name (Chinese as pinyin) or a link's
 * URL, the same on every import of the same file, so a second import updates instead of duplicating.
 */
export function slugFromText(text: string, fallback: string): string {
  const latin = pinyin(text, { toneType: 'none', type: 'array', nonZh: 'consecutive' }).join('-');
  return slugFromLatin(latin) || fallback;
}

export function slugFromUrl(url: string, fallback: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.host.replace(/^www\./, '');
    const path = parsed.pathname.replace(/\/+$/, '');
    return slugFromLatin(`${host}${path}${parsed.search}`) || fallback;
  } catch {
    return slugFromLatin(url) || fallback;
  }
}

function slugFromLatin(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .slice(0, 100)
    .replace(/[^a-z0-9]+$/, '');
}

/** Hands out `base`, then `base-2`, `base-3`… for different keys asking for the same base. */
export function createSlugRegistry() {
  const byKey = new Map<string, string>();
  const taken = new Set<string>();
  return (key: string, base: string): string => {
    const known = byKey.get(key);
    if (known) return known;
    let slug = base;
    for (let n = 2; taken.has(slug); n += 1) slug = `${base.slice(0, 95)}-${n}`;
    taken.add(slug);
    byKey.set(key, slug);
    return slug;
  };
}
