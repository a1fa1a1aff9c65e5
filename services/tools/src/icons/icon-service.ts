import crypto from 'node:crypto';
import type { Fetcher } from '../outbound/fetcher';
import { OutboundError } from '../outbound/outbound-error';
import { findIcon, IconNotFoundError, MAX_ICON_BYTES } from './icon-finder';
import { NotAnIconError, renderIcon } from './icon-image';
import type { IconRepository, IconTarget } from './icon-repository';

/** A failed icon is tried again after an hour, then 2, 4, 8 ... hours, at most the refresh period. */
const RETRY_BASE_SECONDS = 3600;

export type IconOutcome = { slug: string; ok: true; sourceUrl: string } | { slug: string; ok: false; error: string };

const DAY_MS = 24 * 3600 * 1000;

function httpUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Fetches, renders and stores tools' icons; what the CLI and the background job call. */
export function createIconService(deps: { icons: IconRepository; fetcher: Fetcher; refreshDays: number; now?: () => Date }) {
  const { icons, fetcher } = deps;
  const now = deps.now ?? (() => new Date());
  const versionOf = (png: Buffer) => crypto.createHash('sha256').update(png).digest('base64url').slice(0, 16);

  async function refresh(target: IconTarget): Promise<IconOutcome> {
    const started = now();
    const firstTry = [target.overrideUrl, target.importedIcon].map((url) => (url ? httpUrl(url) : undefined)).filter((url): url is string => url !== undefined);
    const siteUrl = httpUrl(target.url);
    try {
      if (!siteUrl && firstTry.length === 0) throw new IconNotFoundError(['the tool has no http(s) address']);
      const found = await findIcon(fetcher, { siteUrl: siteUrl ?? firstTry[0]!, firstTry });
      await icons.store(
        target.toolId,
        { content: found.png, contentType: 'image/png', version: versionOf(found.png), sourceUrl: found.sourceUrl, fromFile: false },
        now(),
        new Date(started.getTime() + deps.refreshDays * DAY_MS),
      );
      return { slug: target.slug, ok: true, sourceUrl: found.sourceUrl };
    } catch (error) {
      if (!(error instanceof IconNotFoundError)) throw error;
      await icons.recordFailure(target.toolId, error.message, started, { baseSeconds: RETRY_BASE_SECONDS, maxSeconds: deps.refreshDays * 86400 });
      return { slug: target.slug, ok: false, error: error.message };
    }
  }

  return {
    refresh,

    /** Up to `limit` tools whose icon is due, one after another (the job is background work, not a race). */
    async refreshDue(limit: number): Promise<IconOutcome[]> {
      const outcomes: IconOutcome[] = [];
      for (const target of await icons.dueTargets(now(), limit)) outcomes.push(await refresh(target));
      return outcomes;
    },

    async refreshAll(onOutcome: (outcome: IconOutcome) => void): Promise<void> {
      for (const target of await icons.allTargets()) onOutcome(await refresh(target));
    },

    /** The operator's icon URL, fetched now through the same checks; undefined: no such tool. */
    async overrideWithUrl(slug: string, url: string): Promise<IconOutcome | undefined> {
      const target = await icons.targetBySlug(slug);
      if (!target) return undefined;
      await icons.setOverrideUrl(target.toolId, url, now());
      return refresh({ ...target, overrideUrl: url, overrideFile: false });
    },

    /**
     * The editor's icon URL and nothing else (no fallback to the site's icons): fetched through the same
     * fetcher and checks; stored with the override only when it is a real icon, so a refusal changes nothing.
     */
    async useUrl(slug: string, url: string): Promise<IconOutcome | undefined> {
      const target = await icons.targetBySlug(slug);
      if (!target) return undefined;
      const started = now();
      let found: { png: Buffer; sourceUrl: string };
      try {
        const response = await fetcher.fetch({ url, maxBytes: MAX_ICON_BYTES, accept: 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5' });
        if (response.status !== 200) return { slug, ok: false, error: `HTTP ${response.status}` };
        found = { png: (await renderIcon(response.body)).png, sourceUrl: response.url };
      } catch (error) {
        if (error instanceof OutboundError) return { slug, ok: false, error: error.failure };
        if (error instanceof NotAnIconError) return { slug, ok: false, error: error.message };
        throw error;
      }
      await icons.setOverrideUrl(target.toolId, url, started);
      const icon = { content: found.png, contentType: 'image/png', version: versionOf(found.png), sourceUrl: found.sourceUrl, fromFile: false };
      await icons.store(target.toolId, icon, now(), new Date(started.getTime() + deps.refreshDays * DAY_MS));
      return { slug, ok: true, sourceUrl: found.sourceUrl };
    },

    /** An icon file the operator gives: validated and rendered like a fetched one, then never refetched. */
    async overrideWithFile(slug: string, bytes: Buffer): Promise<boolean> {
      const target = await icons.targetBySlug(slug);
      if (!target) return false;
      const { png } = await renderIcon(bytes);
      await icons.store(target.toolId, { content: png, contentType: 'image/png', version: versionOf(png), sourceUrl: 'file', fromFile: true }, now(), now());
      return true;
    },

    /** Drops the operator's override: the icon is fetched from the site again at the next run. */
    async clearOverride(slug: string): Promise<boolean> {
      const target = await icons.targetBySlug(slug);
      if (!target) return false;
      await icons.setOverrideUrl(target.toolId, null, now());
      return true;
    },
  };
}

export type IconService = ReturnType<typeof createIconService>;
