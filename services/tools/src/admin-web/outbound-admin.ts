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

  return { links, icons, withFetcher, changed: deps.changed };
}

export type OutboundAdmin = ReturnType<typeof createOutboundAdmin>;
