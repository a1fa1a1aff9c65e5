import { escapeHtml, htmlPage as page, serverPageHeaders } from './server-page';

/**
 * The page a deletion link (ShareX's DeletionURL) opens. A GET only shows it: link previews and
 * prefetchers follow links, so the deletion itself is the form's POST. A server page (server-page.ts).
 */

export const DELETION_PAGE_HEADERS = serverPageHeaders();

export function confirmationPage(originalName: string): string {
  return page(
    '删除图片',
    `<p>确定要删除图片 <strong>${escapeHtml(originalName)}</strong> 吗？它会移入回收站，图床链接随即失效；图片的主人可以从回收站恢复。</p>
<form method="post"><button type="submit">删除</button></form>`,
  );
}

export function deletedPage(): string {
  return page('已删除', '<p>图片已移入回收站，链接已失效。</p>');
}

export function goneLinkPage(): string {
  return page('链接无效', '<p>这个删除链接无效，或图片已被删除。</p>');
}
