import type { Fetcher } from '../outbound/fetcher';
import { probeLink, type LinkProbe } from './link-probe';
import type { LinkRepository, LinkTarget } from './link-repository';

export interface LinkCheckOutcome {
  target: LinkTarget;
  probe: LinkProbe;
}

export interface LinkCheckerOptions {
  links: LinkRepository;
  fetcher: Fetcher;
  /** Each link is checked again after this long when it was ok; a failing one sooner (a quarter of it). */
  intervalHours: number;
  /** Hosts checked at the same time; one host never sees more than one request at a time from us. */
  hostConcurrency?: number;
  /** Waits before the retries of a link that did not come back ok: a blip is not a dead site. */
  retryDelaysMs?: number[];
  now?: () => Date;
  /** Waits `ms`; tests keep the default (a timer). */
  sleep?: (ms: number) => Promise<void>;
}

const HOUR_MS = 3600 * 1000;
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}

/**
 * The polite link checker: links are grouped by host, a few hosts at a time, one request at a time per
 * host; a link that is not ok is retried after a pause before the verdict is recorded, except when the
 * site blocks robots (asking again would only annoy it).
 */
export function createLinkChecker(options: LinkCheckerOptions) {
  const { links, fetcher } = options;
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? defaultSleep;
  const retryDelaysMs = options.retryDelaysMs ?? [2_000, 10_000];
  const hostConcurrency = options.hostConcurrency ?? 4;

  async function checkOne(target: LinkTarget): Promise<LinkCheckOutcome> {
    let probe = await probeLink(fetcher, target.url);
    for (const delay of retryDelaysMs) {
      if (probe.status === 'ok' || probe.reason === 'blocked' || probe.reason === 'bad_url' || probe.reason === 'private_address') break;
      await sleep(delay);
      probe = await probeLink(fetcher, target.url);
    }
    const checkedAt = now();
    const wait = probe.status === 'ok' ? options.intervalHours * HOUR_MS : Math.max(HOUR_MS, (options.intervalHours * HOUR_MS) / 4);
    await links.record(target, probe, checkedAt, new Date(checkedAt.getTime() + wait));
    return { target, probe };
  }

  /** Checks the given links (host by host) and records each verdict; `onChecked` hears each as it lands. */
  async function check(targets: LinkTarget[], onChecked: (outcome: LinkCheckOutcome) => void | Promise<void> = () => undefined, shouldStop: () => boolean = () => false): Promise<LinkCheckOutcome[]> {
    const byHost = new Map<string, LinkTarget[]>();
    for (const target of targets) byHost.set(hostOf(target.url), [...(byHost.get(hostOf(target.url)) ?? []), target]);
    const queue = [...byHost.values()];
    const outcomes: LinkCheckOutcome[] = [];
    const worker = async () => {
      for (let group = queue.shift(); group; group = queue.shift()) {
        for (const target of group) {
          if (shouldStop()) return;
          const outcome = await checkOne(target);
          outcomes.push(outcome);
          await onChecked(outcome);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(hostConcurrency, queue.length) }, worker));
    return outcomes;
  }

  return {
    check,
    async checkDue(limit: number, onChecked?: (outcome: LinkCheckOutcome) => void | Promise<void>, shouldStop?: () => boolean) {
      return check(await links.dueTargets(now(), limit), onChecked, shouldStop);
    },
  };
}

export type LinkChecker = ReturnType<typeof createLinkChecker>;
