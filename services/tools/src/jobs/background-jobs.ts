import crypto from 'node:crypto';
import os from 'node:os';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { createIconRepository } from '../icons/icon-repository';
import { createIconService } from '../icons/icon-service';
import { createLinkChecker } from '../links/link-checker';
import { createLinkRepository } from '../links/link-repository';
import { createFetcher, type FetcherOptions } from '../outbound/fetcher';
import { createJobLease, type JobLease } from '@platform/kit';

export interface BackgroundJobsOptions {
  db: Knex;
  logger: Logger;
  fetcher: FetcherOptions;
  iconFetch: boolean;
  iconRefreshDays: number;
  linkCheck: boolean;
  linkCheckIntervalHours: number;
  /** First run this long after start (a process that only starts and stops, as in tests, fetches nothing). */
  firstRunAfterMs?: number;
  /** Pause between runs. */
  everyMs?: number;
}

/** A lease outlives the longest single step (one icon's few fetches, one link's retries) by far. */
const LEASE_MS = 5 * 60 * 1000;
const ICONS_PER_RUN = 50;
const LINKS_PER_RUN = 200;

/**
 * Icons and link checks in the background: every few minutes each enabled job takes its lease (one
 * replica at a time), works through what is due, renewing the lease as it goes, and stops between two
 * steps when the service shuts down.
 */
export function startBackgroundJobs(options: BackgroundJobsOptions): { stop(): Promise<void>; runOnce(): Promise<void> } {
  const holder = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  const fetcher = createFetcher(options.fetcher);
  const iconLease = createJobLease(options.db, { name: 'icons', holder, ttlMs: LEASE_MS });
  const linkLease = createJobLease(options.db, { name: 'links', holder, ttlMs: LEASE_MS });
  const icons = createIconService({ icons: createIconRepository(options.db), fetcher, refreshDays: options.iconRefreshDays });
  const iconRepository = createIconRepository(options.db);
  const checker = createLinkChecker({ links: createLinkRepository(options.db), fetcher, intervalHours: options.linkCheckIntervalHours });
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function whileHeld(lease: JobLease, work: (keep: () => Promise<boolean>) => Promise<void>): Promise<void> {
    if (!(await lease.acquire())) return;
    try {
      await work(async () => !stopping && (await lease.acquire()));
    } finally {
      await lease.release();
    }
  }

  async function runOnce(): Promise<void> {
    if (options.iconFetch) {
      await whileHeld(iconLease, async (keep) => {
        let stored = 0;
        let failed = 0;
        for (const target of await iconRepository.dueTargets(new Date(), ICONS_PER_RUN)) {
          if (!(await keep())) break;
          if ((await icons.refresh(target)).ok) stored++;
          else failed++;
        }
        if (stored + failed > 0) options.logger.info({ stored, failed }, 'icons fetched');
      });
    }
    if (options.linkCheck && !stopping) {
      await whileHeld(linkLease, async (keep) => {
        let held = true;
        const outcomes = await checker.checkDue(
          LINKS_PER_RUN,
          async () => {
            held = await keep();
          },
          () => !held,
        );
        const broken = outcomes.filter((outcome) => outcome.probe.status === 'broken').length;
        if (outcomes.length > 0) options.logger.info({ checked: outcomes.length, broken }, 'links checked');
      });
    }
  }

  const schedule = (ms: number) => {
    if (stopping) return;
    timer = setTimeout(() => {
      running = runOnce()
        .catch((error: unknown) => options.logger.error({ err: error }, 'background job failed'))
        .finally(() => {
          running = undefined;
          schedule(options.everyMs ?? 5 * 60 * 1000);
        });
    }, ms);
    timer.unref();
  };
  if (options.iconFetch || options.linkCheck) schedule(options.firstRunAfterMs ?? 60 * 1000);

  return {
    runOnce,
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      // A fetch in flight ends by its own time limit; shutdown waits a little for it, not that long.
      if (running) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
      await fetcher.close();
    },
  };
}
