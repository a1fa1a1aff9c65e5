import { createHash } from 'node:crypto';

/**
 * The pages the service renders itself (album share links, public image pages, the deletion link's
 * page): plain HTML, no script, one style block allowed by its hash under a strict
 * Content-Security-Policy. Every name on them is user data and goes through escapeHtml.
 */

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2433}main{max-width:1100px;margin:0 auto;padding:24px 16px}h1{font-size:1.5rem;margin:0 0 16px}ul.grid{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px}ul.grid li{background:#fff;border-radius:8px;overflow:hidden;box-shadow:0 1px 2px #0002}ul.grid img{display:block;width:100%;height:180px;object-fit:cover;background:#e8ebf0}ul.grid a{color:inherit;text-decoration:none;display:block}ul.grid span{display:block;padding:8px;font-size:.875rem;overflow-wrap:anywhere}figure{margin:0}figure img{max-width:100%;height:auto}label{display:block;margin-bottom:8px}input{font:inherit;padding:6px 8px}button{font:inherit;padding:6px 14px;margin-left:8px}p.error{color:#a3001b}nav.pages{display:flex;flex-wrap:wrap;gap:16px;align-items:center;margin:16px 0}nav.pages a{color:#0b57d0}`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The headers of a server page; `imageSources`: where its images may come from (none by default). */
export function serverPageHeaders(imageSources: string[] = []): Record<string, string> {
  const images = imageSources.length > 0 ? ` img-src ${imageSources.join(' ')};` : '';
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none';${images} style-src 'sha256-${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A whole page: its title as <title> and <h1>, then `body`; `head` adds to <head> (preview tags). */
export function htmlPage(title: string, body: string, head = '', lang: 'zh-CN' | 'en' = 'zh-CN'): string {
  return `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
${head}<style>${STYLE}</style></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}
