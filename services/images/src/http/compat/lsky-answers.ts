import type { ImageLinks, ListItem, UploadResult } from '../../images/image-views';
import type { Page } from '../../images/listing-service';
import { mimeTypeOfExtension } from '../../media/media-processor';
import type { MessageKey } from '../../errors/messages';
import type { FailureShape } from '../error-middleware';

/**
 * Lsky Pro's answers, built here and only here: 2.x `{status, message, data}` (its `Result` trait: a
 * refusal is HTTP 200 with `status: false`, a missing or wrong token 401, too many sign-ins 429), 1.x `{code, msg, data, time}`
 * (always HTTP 200). Sizes are in KB, as Lsky stores them. An image's `key` is its id.
 */
export function lskySuccess(message: string, data: unknown = {}) {
  return { status: true, message, data };
}

const LSKY_STATUS: Partial<Record<MessageKey, number>> = { notLoggedIn: 401, signInThrottled: 429 };

export const lskyFailure: FailureShape = ({ key, message, status }) => ({
  status: LSKY_STATUS[key] ?? (status === 404 || status >= 500 ? status : 200),
  body: { status: false, message, data: {} },
});

/**
 * 1.x: `code` 200 on success, else 401 (credential) or 500; `message` repeats `msg` because
 * picgo-plugin-lankong shows `message` on a 1.x refusal.
 */
export const lskyV1Failure: FailureShape = ({ key, message, status }) => ({
  status: status >= 500 ? status : 200,
  body: { code: key === 'notLoggedIn' ? 401 : 500, msg: message, message, data: {}, time: Math.floor(Date.now() / 1000) },
});

export function lskyV1Success(message: string, data: unknown) {
  return { code: 200, msg: message, data, time: Math.floor(Date.now() / 1000) };
}

const kilobytes = (bytes: number) => Math.round((bytes / 1024) * 100) / 100;

function pathOf(url: string): { pathname: string; name: string; extension: string } {
  const pathname = new URL(url).pathname.replace(/^\/i\//, '');
  const name = pathname.split('/').pop() ?? pathname;
  return { pathname, name, extension: name.includes('.') ? name.split('.').pop()! : '' };
}

function lskyLinks(links: ImageLinks, originalName: string) {
  return {
    url: links.url,
    html: links.html,
    bbcode: links.bbcode,
    markdown: links.markdown,
    markdown_with_link: `[${links.markdown}](${links.url})`,
    thumbnail_url: links.thumbnail,
    delete_url: links.delete,
    origin_name: originalName,
  };
}

/** `data` of a 2.x upload. */
export function lskyUploaded(image: UploadResult) {
  const { pathname, name, extension } = pathOf(image.url);
  return {
    key: String(image.id),
    name,
    pathname,
    origin_name: image.original_name,
    size: kilobytes(image.file_size),
    mimetype: mimeTypeOfExtension(extension),
    extension,
    links: lskyLinks(image.links, image.original_name),
  };
}

/** `data` of a 1.x upload (uPic and picgo-plugin-lankong read `data.url`). */
export function lskyV1Uploaded(image: UploadResult) {
  const { name, extension } = pathOf(image.url);
  return { name: image.original_name, url: image.url, size: kilobytes(image.file_size), mime: mimeTypeOfExtension(extension), pathname: name };
}

/** A Laravel paginator, as Lsky's lists are: `data.data` the items, 40 a page. */
export function lskyPage<T>(page: Pick<Page<unknown>, 'page' | 'limit' | 'total'>, items: T[], path: string) {
  const lastPage = Math.max(Math.ceil(page.total / page.limit), 1);
  const pageUrl = (n: number) => `${path}?page=${n}`;
  const from = items.length > 0 ? (page.page - 1) * page.limit + 1 : null;
  return {
    current_page: page.page,
    data: items,
    first_page_url: pageUrl(1),
    from,
    last_page: lastPage,
    last_page_url: pageUrl(lastPage),
    links: [],
    next_page_url: page.page < lastPage ? pageUrl(page.page + 1) : null,
    path,
    per_page: page.limit,
    prev_page_url: page.page > 1 ? pageUrl(page.page - 1) : null,
    to: from === null ? null : from + items.length - 1,
    total: page.total,
  };
}

/** An item of `GET /api/v1/images` (asked with links). */
export function lskyListed(item: ListItem) {
  const { pathname, name, extension } = pathOf(item.url);
  return {
    key: String(item.id),
    name,
    pathname,
    origin_name: item.original_name,
    size: kilobytes(item.file_size),
    mimetype: mimeTypeOfExtension(extension),
    extension,
    links: lskyLinks(item.links!, item.original_name),
    date: item.create_time,
    human_date: item.create_time,
  };
}
