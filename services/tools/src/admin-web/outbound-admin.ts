import type { Knex } from 'knex';
import { createIconRepository } from '../icons/icon-repository';
import { createIconService, type IconService } from '../icons/icon-service';
import { createLinkChecker, type LinkChecker } from '../links/link-checker';
import { createLinkRepository } from '../links/link-repository';
import { createFetcher, type FetcherOptions } from '../outbound/fetcher';

/** What the admin's icon and link-health pages need: the database and the one outbound fetcher's settings. */
export interface OutboundAdminDeps {
  db: Knex;
  fetcher: FetcherOptions;
  iconRefreshDays: number;
  linkCheckIntervalHours: number;
  /** Tells this process's caches that the catalog changed (an icon is part of what pages show). */
  changed: () => void;
}

export function createOutboundAdmin(deps: OutboundAdminDeps) {
  const links = createLinkRepository(deps.db);
  const icons = createIconRepository(deps.db);

  /**
   * Runs `work` with a fetcher made for it and closed after: an editor's button is rare, and a fetcher
   * kept for the app's life would hold connections nobody closes.
   */
  async function withFetcher<T>(work: (tools: { icons: IconService; checker: LinkChecker }) => Promise<T>): Promise<T> {
    const fetcher = createFetcher(deps.fetcher);
    try {
      return await work({
        icons: createIconService({ icons, fetcher, refreshDays: deps.iconRefreshDays }),
        // One probe, no retries: the editor is waiting for the answer, and can press the button again.
        checker: createLinkChecker({ links, fetcher, intervalHours: deps.linkCheckIntervalHours, retryDelaysMs: [] }),
      });
    } finally {
      await fetcher.close();
    }
  }

  /**
   * Fetches tool `slug`'s icon again in the background (its address changed in the admin): the editor does
   * not wait, and the new icon shows as soon as it is stored. A failure is recorded with the icon's backoff.
   */
  function refetchIconSoon(slug: string): Promise<void> {
    return withFetcher(async ({ icons: service }) => {
      const target = await icons.targetBySlug(slug);
      if (target && !target.overrideFile) await service.refresh(target);
    })
      .then(() => deps.changed())
      .catch(() => undefined);
  }

  return { links, icons, withFetcher, refetchIconSoon, changed: deps.changed };
}

export type OutboundAdmin = ReturnType<typeof createOutboundAdmin>;
