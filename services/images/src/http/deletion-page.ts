/**
 * The page a deletion link (ShareX's DeletionURL) opens. A GET only shows it: link previews and
 * prefetchers follow links, so the deletion itself is the form's POST. Plain HTML, no script, a
 * strict Content-Security-Policy; the file name is user data and is escaped.
 */
export const DELETION_PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="zh-CN">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

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
