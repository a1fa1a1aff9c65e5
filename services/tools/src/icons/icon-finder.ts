import type { Fetcher } from '../outbound/fetcher';
import { OutboundError } from '../outbound/outbound-error';
import { discoverIcons, manifestIcons } from './icon-discovery';
import { NotAnIconError, renderIcon } from './icon-image';

/** An icon file larger than this is not a favicon. */
export const MAX_ICON_BYTES = 512 * 1024;
/** Enough of a page to reach the end of its <head>. */
const MAX_PAGE_BYTES = 1024 * 1024;
const MAX_MANIFEST_BYTES = 100 * 1024;
/** Icon URLs tried per tool, at most: a page listing fifty icons gets no fifty fetches. */
const MAX_ICON_ATTEMPTS = 6;

export interface FoundIcon {
  png: Buffer;
  sourceUrl: string;
}

export class IconNotFoundError extends Error {
  constructor(readonly attempts: string[]) {
    super(attempts.join('; ').slice(0, 1000) || 'no icon found');
    this.name = 'IconNotFoundError';
  }
}

function why(error: unknown): string {
  if (error instanceof OutboundError) return error.failure;
  if (error instanceof NotAnIconError) return error.message;
  return (error as Error)?.message ?? String(error);
}

const shortUrl = (url: string) => (url.length > 120 ? `${url.slice(0, 117)}...` : url);

/**
 * Finds a tool's icon, all through the one SSRF-safe fetcher: first the URLs given (the operator's
 * override, the imported icon), then the icons the site's page links, its web manifest's, and
 * `/favicon.ico`. The first that is a real image wins, rendered to our PNG (icon-image.ts).
 */
export async function findIcon(fetcher: Fetcher, input: { siteUrl: string; firstTry: string[] }): Promise<FoundIcon> {
  const attempts: string[] = [];
  const tried = new Set<string>();

  // /favicon.ico, the last resort, is always tried: the others share the remaining attempts.
  const tryIcon = async (url: string, lastResort = false): Promise<FoundIcon | undefined> => {
    if (tried.has(url) || (!lastResort && tried.size >= MAX_ICON_ATTEMPTS - 1)) return undefined;
    tried.add(url);
    try {
      const response = await fetcher.fetch({ url, maxBytes: MAX_ICON_BYTES, accept: 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5' });
      if (response.status !== 200) {
        attempts.push(`${shortUrl(url)}: HTTP ${response.status}`);
        return undefined;
      }
      const { png } = await renderIcon(response.body);
      return { png, sourceUrl: response.url };
    } catch (error) {
      attempts.push(`${shortUrl(url)}: ${why(error)}`);
      return undefined;
    }
  };

  for (const url of input.firstTry) {
    const found = await tryIcon(url);
    if (found) return found;
  }

  let pageUrl = input.siteUrl;
  let discovered: ReturnType<typeof discoverIcons> = { icons: [], manifest: undefined };
  try {
    const page = await fetcher.fetch({ url: input.siteUrl, maxBytes: MAX_PAGE_BYTES, accept: 'text/html,application/xhtml+xml' });
    pageUrl = page.url;
    if (page.status === 200) discovered = discoverIcons(page.body.toString('utf8'), page.url);
    else attempts.push(`page: HTTP ${page.status}`);
  } catch (error) {
    attempts.push(`page: ${why(error)}`);
    // Nothing answers there (or may not be reached): /favicon.ico on the same host would fail alike.
    if (error instanceof OutboundError && error.failure !== 'too-large' && error.failure !== 'timeout') throw new IconNotFoundError(attempts);
  }

  for (const url of discovered.icons) {
    const found = await tryIcon(url);
    if (found) return found;
  }
  if (discovered.manifest) {
    try {
      const manifest = await fetcher.fetch({ url: discovered.manifest, maxBytes: MAX_MANIFEST_BYTES, accept: 'application/manifest+json,application/json' });
      if (manifest.status === 200) {
        for (const url of manifestIcons(manifest.body.toString('utf8'), manifest.url)) {
          const found = await tryIcon(url);
          if (found) return found;
        }
      }
    } catch (error) {
      attempts.push(`manifest: ${why(error)}`);
    }
  }
  const favicon = await tryIcon(new URL('/favicon.ico', pageUrl).href, true);
  if (favicon) return favicon;
  throw new IconNotFoundError(attempts);
}
