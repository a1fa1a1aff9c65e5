import { messageText, type CatalogMessage } from '../catalog/catalog-messages';
import { adminLang } from './admin-lang';

/**
 * What the admin shows of stored values, in the language of the request being served: the catalog's
 * messages, a tool's or category's name, a time.
 */

/** A catalog message (catalog-messages.ts; a plain string, from an import stored before message keys, as it is). */
export const adminMessage = (message: CatalogMessage | string): string => messageText(message, adminLang());

/** The English name in the English admin where one is filled in, the Chinese name otherwise. */
export function adminName(item: { name: string; name_en?: string | null }): string {
  return adminLang() === 'en' && item.name_en ? item.name_en : item.name;
}

/** Times in the admin are the operator's (China) time, to the minute, written the way of the admin's language. */
const TIME_FORMATS = {
  zh: new Intl.DateTimeFormat('zh-CN', { timeZone: 'Asia/Shanghai', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }),
  en: new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Shanghai', hourCycle: 'h23', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }),
};

export function adminTime(date: Date | string): string {
  return TIME_FORMATS[adminLang()].format(new Date(date));
}
