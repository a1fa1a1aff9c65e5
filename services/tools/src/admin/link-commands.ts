import { parseArgs } from 'node:util';
import { createLinkChecker, type LinkCheckOutcome } from '../links/link-checker';
import { createLinkRepository } from '../links/link-repository';
import { createFetcher } from '../outbound/fetcher';
import { OutboundCommandError, type OutboundContext } from './icon-commands';

export const LINK_HELP = `Link health (each tool's address, checked politely: one request at a time per host)
  links:check [<slug>...] [--all]                 check the links that are due (default), the named tools', or all
  links:broken [--unknown]                        broken links (with --unknown also those a site would not let us check)
  links:history <slug>                            a tool's last checks, newest first`;

/** Links checked per `links:check` without arguments; the background job takes the rest later. */
const DUE_BATCH = 500;

const line = ({ target, probe }: LinkCheckOutcome) => [probe.status, target.slug, probe.reason, probe.httpStatus ?? '-', target.url].join('\t');

/** links:* commands; returns the exit status (links:check: 1 when a link is broken). */
export async function runLinkCommand(command: string, args: string[], ctx: OutboundContext & { linkCheckIntervalHours: number; retryDelaysMs?: number[] }): Promise<number> {
  const links = createLinkRepository(ctx.db);
  switch (command) {
    case 'links:check': {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { all: { type: 'boolean' } } });
      const fetcher = createFetcher(ctx.outbound);
      try {
        const checker = createLinkChecker({ links, fetcher, intervalHours: ctx.linkCheckIntervalHours, retryDelaysMs: ctx.retryDelaysMs });
        let outcomes: LinkCheckOutcome[];
        if (positionals.length > 0) {
          const targets = await links.targetsBySlug(positionals);
          const missing = positionals.filter((slug) => !targets.some((target) => target.slug === slug));
          if (missing.length > 0) throw new OutboundCommandError(`no tool with slug "${missing[0]}"`, 1);
          outcomes = await checker.check(targets, (outcome) => ctx.out(line(outcome)));
        } else if (values.all) outcomes = await checker.check(await links.allTargets(), (outcome) => ctx.out(line(outcome)));
        else outcomes = await checker.checkDue(DUE_BATCH, (outcome) => ctx.out(line(outcome)));
        const count = (status: string) => outcomes.filter((outcome) => outcome.probe.status === status).length;
        ctx.out(`links: ${count('ok')} ok, ${count('broken')} broken, ${count('unknown')} unknown`);
        return count('broken') > 0 ? 1 : 0;
      } finally {
        await fetcher.close();
      }
    }
    case 'links:broken': {
      const { values } = parseArgs({ args, options: { unknown: { type: 'boolean' } } });
      const rows = [...(await links.listLinkHealth({ status: 'broken' })), ...(values.unknown ? await links.listLinkHealth({ status: 'unknown' }) : [])];
      ctx.out(['status', 'slug', 'reason', 'http', 'failures', 'checked_at', 'last_ok_at', 'url'].join('\t'));
      for (const row of rows) {
        ctx.out([row.status, row.slug, row.reason, row.httpStatus ?? '-', row.consecutiveFailures, row.checkedAt.toISOString(), row.lastOkAt?.toISOString() ?? 'never', row.url].join('\t'));
      }
      const counts = await links.countByStatus();
      ctx.out(`${counts.broken} broken, ${counts.unknown} unknown, ${counts.ok} ok`);
      return 0;
    }
    case 'links:history': {
      const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
      if (!positionals[0]) throw new OutboundCommandError('missing tool slug', 2);
      ctx.out(['checked_at', 'status', 'reason', 'http', 'ms', 'url'].join('\t'));
      for (const check of await links.linkHistory(positionals[0])) {
        ctx.out([check.checkedAt.toISOString(), check.status, check.reason, check.httpStatus ?? '-', check.durationMs, check.url].join('\t'));
      }
      return 0;
    }
    default:
      throw new OutboundCommandError(`unknown command "${command}"`, 2);
  }
}
