import { pinyin } from 'pinyin-pro';

const HAN = /\p{Script=Han}/u;

/**
 * Pinyin of a name with Chinese characters, lowercase, no tones, no spaces: `截图工具` → `jietugongju` / `jtgj`.
 * Latin runs are kept whole in both (`QQ音乐` → `qqyinyue` / `qqyy`). Names without Chinese get null:
 * their pinyin would only repeat the name.
 */
export function namePinyin(name: string): { full: string; initials: string } | null {
  if (!HAN.test(name)) return null;
  const full = pinyin(name, { toneType: 'none', type: 'array', nonZh: 'consecutive' });
  const initials = pinyin(name, { pattern: 'first', toneType: 'none', type: 'array', nonZh: 'consecutive' });
  const squash = (parts: string[]) => parts.join('').toLowerCase().replace(/[^a-z0-9]/g, '');
  return { full: squash(full), initials: squash(initials) };
}

/** The single lowercased text the search filters on (the ranking then looks at each field). */
export function searchDocument(fields: { name: string; slug: string; tags: string[]; description: string; pinyin: { full: string; initials: string } | null }): string {
  return [fields.name, fields.slug, fields.tags.join(' '), fields.description, fields.pinyin?.full ?? '', fields.pinyin?.initials ?? '']
    .join('\n')
    .toLowerCase();
}
