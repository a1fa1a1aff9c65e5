import type { ShareLinkState, SharedImageView } from '../sharing/sharing-service';
import { escapeHtml, htmlPage as page, serverPageHeaders } from './server-page';

/**
 * The server-rendered pages of album share links (`/s/<token>`) and public image pages (`/p/<key>`):
 * server pages (server-page.ts) whose images come from this origin and the public base URL's.
 */

export function sharePageHeaders(publicBaseUrl: string): Record<string, string> {
  return serverPageHeaders(["'self'", new URL(publicBaseUrl).origin]);
}

/** Open Graph and Twitter card tags, for chat apps' link previews. */
function previewTags(preview: { title: string; imageUrl?: string; pageUrl?: string; type: string }): string {
  const tags: Array<[string, string, string]> = [
    ['property', 'og:title', preview.title],
    ['property', 'og:type', preview.type],
  ];
  if (preview.pageUrl) tags.push(['property', 'og:url', preview.pageUrl]);
  if (preview.imageUrl) tags.push(['property', 'og:image', preview.imageUrl], ['name', 'twitter:card', 'summary_large_image'], ['name', 'twitter:image', preview.imageUrl]);
  tags.push(['name', 'twitter:title', preview.title]);
  return tags.map(([attribute, name, content]) => `<meta ${attribute}="${name}" content="${escapeHtml(content)}">`).join('\n');
}

/** Where the page is in its album, and the address of another of its pages. */
export interface PagingLinks {
  page: number;
  pages: number;
  total: number;
  href(page: number): string;
}

function pagingNav(paging: PagingLinks): string {
  if (paging.pages <= 1) return '';
  const link = (page: number, text: string, rel: string) => `<a href="${escapeHtml(paging.href(page))}" rel="${rel}">${text}</a>`;
  const parts = [
    paging.page > 1 ? link(paging.page - 1, '← 上一页', 'prev') : '',
    `<span aria-current="page">第 ${paging.page} / ${paging.pages} 页</span>`,
    paging.page < paging.pages ? link(paging.page + 1, '下一页 →', 'next') : '',
  ].filter((part) => part !== '');
  return `<nav class="pages" aria-label="分页">${parts.join('\n')}</nav>`;
}

export function albumPage(albumName: string, images: SharedImageView[], preview: boolean, paging: PagingLinks = { page: 1, pages: 1, total: images.length, href: () => '' }): string {
  const head = previewTags({ title: albumName, imageUrl: images[0]?.thumbUrl, type: 'website' });
  if (preview) return page(albumName, '<p>分享的相册</p>', head);
  const items = images
    .map(
      (image) =>
        `<li><a href="${escapeHtml(image.url)}"><img src="${escapeHtml(image.thumbUrl)}" alt="${escapeHtml(image.name)}" loading="lazy"><span><bdi>${escapeHtml(image.name)}</bdi></span></a></li>`,
    )
    .join('\n');
  if (paging.total === 0) return page(albumName, '<p>这个相册还没有图片。</p>', head);
  const nav = pagingNav(paging);
  return page(albumName, `<p>共 ${paging.total} 张图片</p>\n${nav}<ul class="grid">\n${items}\n</ul>\n${nav}`, head);
}

export function passwordPage(albumName: string, refusal?: 'wrong' | 'throttled'): string {
  const error = refusal === 'wrong' ? '<p class="error" role="alert">密码错误</p>' : refusal === 'throttled' ? '<p class="error" role="alert">尝试过于频繁，请稍后再试</p>' : '';
  return page(
    albumName,
    `<p>这个分享需要密码。</p>
${error}<form method="post"><label for="share-password">密码</label><input id="share-password" name="password" type="password" required autocomplete="off"><button type="submit">查看</button></form>`,
    previewTags({ title: albumName, type: 'website' }),
  );
}

const GONE_TEXT: Record<Exclude<ShareLinkState, 'active'>, string> = {
  revoked: '这个分享链接已被撤销。',
  expired: '这个分享链接已过期。',
  used_up: '这个分享链接的查看次数已用完。',
};

export function goneSharePage(state: Exclude<ShareLinkState, 'active'>): string {
  return page('分享链接已失效', `<p>${GONE_TEXT[state]}</p>`);
}

export function missingSharePage(): string {
  return page('分享链接不存在', '<p>这个分享链接不存在。</p>');
}

export function imagePage(image: SharedImageView & { pageUrl: string }): string {
  return page(
    image.name,
    `<figure><a href="${escapeHtml(image.url)}"><img src="${escapeHtml(image.url)}" alt="${escapeHtml(image.name)}" width="${image.width}" height="${image.height}"></a></figure>`,
    previewTags({ title: image.name, imageUrl: image.url, pageUrl: image.pageUrl, type: 'article' }),
  );
}

export function missingImagePage(): string {
  return page('图片不存在', '<p>这张图片不存在，或它的公开页已关闭。</p>');
}
