import type { Request } from 'express';
import { escapeHtml, htmlPage as page, serverPageHeaders } from './server-page';

/**
 * The page a deletion link (ShareX's DeletionURL) opens. A GET only shows it: link previews and
 * prefetchers follow links, so the deletion itself is the form's POST. A server page (server-page.ts),
 * in Chinese, or in English when the visitor's Accept-Language prefers English to Chinese.
 */

export const DELETION_PAGE_HEADERS = { ...serverPageHeaders(), Vary: 'Accept-Language' };

export type PageLanguage = 'zh' | 'en';

/** The visitor's language of the two the page has: English only when Accept-Language ranks it above Chinese. */
export function deletionPageLanguage(req: Pick<Request, 'acceptsLanguages' | 'get'>): PageLanguage {
  if (!req.get('accept-language')) return 'zh';
  return req.acceptsLanguages('zh', 'en') === 'en' ? 'en' : 'zh';
}

const TEXT = {
  zh: {
    confirmTitle: '删除图片',
    confirm: (name: string) => `确定要删除图片 <strong>${name}</strong> 吗？它会移入回收站，图床链接随即失效；图片的主人可以从回收站恢复。`,
    button: '删除',
    deletedTitle: '已删除',
    deleted: '图片已移入回收站，链接已失效。',
    goneTitle: '链接无效',
    gone: '这个删除链接无效，或图片已被删除。',
  },
  en: {
    confirmTitle: 'Delete image',
    confirm: (name: string) => `Delete the image <strong>${name}</strong>? It moves to the recycle bin and its link stops working at once; its owner can restore it from the bin.`,
    button: 'Delete',
    deletedTitle: 'Deleted',
    deleted: 'The image is in the recycle bin; its link no longer works.',
    goneTitle: 'Link not valid',
    gone: 'This deletion link is not valid, or the image has already been deleted.',
  },
} as const;

const LANG_TAG: Record<PageLanguage, 'zh-CN' | 'en'> = { zh: 'zh-CN', en: 'en' };

export function confirmationPage(originalName: string, language: PageLanguage = 'zh'): string {
  const text = TEXT[language];
  return page(
    text.confirmTitle,
    `<p>${text.confirm(`<bdi>${escapeHtml(originalName)}</bdi>`)}</p>
<form method="post"><button type="submit">${text.button}</button></form>`,
    '',
    LANG_TAG[language],
  );
}

export function deletedPage(language: PageLanguage = 'zh'): string {
  const text = TEXT[language];
  return page(text.deletedTitle, `<p>${text.deleted}</p>`, '', LANG_TAG[language]);
}

export function goneLinkPage(language: PageLanguage = 'zh'): string {
  const text = TEXT[language];
  return page(text.goneTitle, `<p>${text.gone}</p>`, '', LANG_TAG[language]);
}
