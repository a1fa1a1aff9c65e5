import type { Category, Tool } from '../catalog/catalog-repository';
import { html, type Html } from './html';
import type { CategoryEnglish, English, Translations } from './site-queries';
import type { Lang } from './site-text';

/**
 * The directory's data in the page's language: on English pages an editor's English name or description
 * where one is filled, the Chinese text otherwise. Chinese pages always show the Chinese text.
 */
export const NO_TRANSLATIONS: Translations = { tools: new Map(), categories: new Map() };

const HAN = /\p{Script=Han}/u;

export interface Localized {
  text: string;
  /** True when the text is the Chinese fallback on an English page. */
  fallback: boolean;
}

function pick(lang: Lang, chinese: string, english: string | undefined): Localized {
  if (lang === 'en' && english) return { text: english, fallback: false };
  return { text: chinese, fallback: lang === 'en' && HAN.test(chinese) };
}

/** As text (titles, attributes); as markup, a Chinese fallback on an English page is marked lang="zh-CN" for screen readers. */
export function asHtml(value: Localized): Html | string {
  return value.fallback ? html`<span lang="zh-CN">${value.text}</span>` : value.text;
}

export function createLocalizer(lang: Lang, translations: Translations) {
  const tool = (id: number): English | undefined => translations.tools.get(id);
  const category = (id: number): CategoryEnglish | undefined => translations.categories.get(id);
  /** A category's page is in English when its name is and at least half of its tools' pages are. */
  const categoryHasEnglish = (value: Pick<Category, 'id' | 'tool_count'>): boolean => {
    const english = category(value.id);
    return english !== undefined && english.name !== '' && english.englishTools * 2 >= value.tool_count;
  };
  return {
    toolName: (value: Pick<Tool, 'id' | 'name'>) => pick(lang, value.name, tool(value.id)?.name),
    toolDescription: (value: Pick<Tool, 'id' | 'description'>) => pick(lang, value.description, tool(value.id)?.description),
    categoryName: (value: { id: number; name: string }) => pick(lang, value.name, category(value.id)?.name),
    categoryDescription: (value: Pick<Category, 'id' | 'description'>) => pick(lang, value.description, category(value.id)?.description),
    /**
     * Whether a tool's page has its main content in English: an English description, or no description
     * at all and an English name (site-queries.ts's TOOL_HAS_ENGLISH, for the sitemap, says the same).
     * Only such pages are offered as English alternates (hreflang).
     */
    toolHasEnglish(value: Pick<Tool, 'id' | 'description'>): boolean {
      const english = tool(value.id);
      return Boolean(english?.description || (value.description === '' && english?.name));
    },
    categoryHasEnglish,
    /** The home page is in English when at least half of the categories' pages are. */
    homeHasEnglish: (categories: Pick<Category, 'id' | 'tool_count'>[]) => mostlyEnglish(categories.map(categoryHasEnglish)),
  };
}

export type Localizer = ReturnType<typeof createLocalizer>;

/** At least half of a page's items (and at least one) are in English: its main content can claim English. */
export function mostlyEnglish(items: boolean[]): boolean {
  return items.length > 0 && items.filter(Boolean).length * 2 >= items.length;
}
