/**
 * The app's words: Chinese first (the API's own language), English on request. A `{name}` in a
 * phrase is filled in by `t(key, {name: …})`; the values are text, never markup.
 */
import { en } from './phrases/en';
import { serviceMessagesEn } from './phrases/service-messages-en';
import { zh, type MessageKey } from './phrases/zh';

export type { MessageKey };
export type Lang = 'zh' | 'en';

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function translator(lang: Lang): Translate {
  const table = lang === 'en' ? en : zh;
  return (key, values) => {
    const phrase = table[key];
    return values ? phrase.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole)) : phrase;
  };
}

/** A message from the service, in the chosen language (unknown ones as they came). */
export function serviceMessage(lang: Lang, message: string): string {
  return lang === 'en' ? (serviceMessagesEn[message] ?? message) : message;
}

const LANG_KEY = 'imagehost.lang';

export function savedLang(storage: Storage | null): Lang {
  try {
    const saved = storage?.getItem(LANG_KEY);
    if (saved === 'zh' || saved === 'en') return saved;
  } catch {
    // storage refused
  }
  return 'zh';
}

export function saveLang(storage: Storage | null, lang: Lang): void {
  try {
    storage?.setItem(LANG_KEY, lang);
  } catch {
    // the choice lasts for this page
  }
}
