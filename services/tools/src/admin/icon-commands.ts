import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { NotAnIconError } from '../icons/icon-image';
import { createIconRepository } from '../icons/icon-repository';
import { createIconService, type IconOutcome } from '../icons/icon-service';
import { createFetcher, type FetcherOptions } from '../outbound/fetcher';

export const ICON_HELP = `Icons (fetched from each tool's site, stored, served from /icons/<slug>)
  icons:fetch [<slug>...] [--all]                 fetch the icons that are due (default), the named tools', or all
  icons:set <slug> --url <url> | --file <path>    the operator's icon: a URL (fetched now, with the same checks) or an image file
  icons:set <slug> --clear                        drop the override: fetch from the site again
  icons:list [--failing]                          each tool's icon state (version, source, failures, next try, last error)`;

/** Icons fetched per `icons:fetch` without arguments; the background job takes the rest later. */
const DUE_BATCH = 200;

export interface OutboundContext {
  db: Knex;
  /** The fetcher's settings from config (allow-list, time limit). */
  outbound: FetcherOptions;
  iconRefreshDays: number;
  out(line: string): void;
  err(line: string): void;
}

export class OutboundCommandError extends Error {
  constructor(
    message: string,
    readonly status: 1 | 2,
  ) {
    super(message);
  }
}

const describe = (outcome: IconOutcome) => (outcome.ok ? `ok\t${outcome.slug}\t${outcome.sourceUrl}` : `failed\t${outcome.slug}\t${outcome.error}`);

/** icons:* commands; returns the exit status (1 when any icon failed, so scripts can tell). */
export async function runIconCommand(command: string, args: string[], ctx: OutboundContext): Promise<number> {
  const repository = createIconRepository(ctx.db);
  const fetcher = createFetcher(ctx.outbound);
  const service = createIconService({ icons: repository, fetcher, refreshDays: ctx.iconRefreshDays });
  try {
    switch (command) {
      case 'icons:fetch': {
        const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { all: { type: 'boolean' } } });
        const outcomes: IconOutcome[] = [];
        const report = (outcome: IconOutcome) => {
          outcomes.push(outcome);
          ctx.out(describe(outcome));
        };
        if (values.all) await service.refreshAll(report);
        else if (positionals.length > 0) {
          for (const slug of positionals) {
            const target = await repository.targetBySlug(slug);
            if (!target) throw new OutboundCommandError(`no tool with slug "${slug}"`, 1);
            report(await service.refresh(target));
          }
        } else (await service.refreshDue(DUE_BATCH)).forEach(report);
        const failed = outcomes.filter((outcome) => !outcome.ok).length;
        ctx.out(`icons: ${outcomes.length - failed} stored, ${failed} failed`);
        return failed > 0 ? 1 : 0;
      }
      case 'icons:set': {
        const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { url: { type: 'string' }, file: { type: 'string' }, clear: { type: 'boolean' } } });
        const slug = positionals[0];
        if (!slug) throw new OutboundCommandError('missing tool slug', 2);
        if ([values.url, values.file, values.clear].filter((given) => given !== undefined).length !== 1) throw new OutboundCommandError('give exactly one of --url, --file or --clear', 2);
        if (values.clear) {
          if (!(await service.clearOverride(slug))) throw new OutboundCommandError(`no tool with slug "${slug}"`, 1);
          ctx.out(`icon override of "${slug}" cleared; the next run fetches from the site`);
          return 0;
        }
        if (values.file !== undefined) {
          let bytes: Buffer;
          try {
            bytes = fs.readFileSync(values.file);
          } catch (error) {
            throw new OutboundCommandError(`cannot read ${values.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 1);
          }
          if (!(await service.overrideWithFile(slug, bytes))) throw new OutboundCommandError(`no tool with slug "${slug}"`, 1);
          ctx.out(`icon of "${slug}" stored from ${values.file}`);
          return 0;
        }
        const outcome = await service.overrideWithUrl(slug, values.url!);
        if (!outcome) throw new OutboundCommandError(`no tool with slug "${slug}"`, 1);
        ctx.out(describe(outcome));
        return outcome.ok ? 0 : 1;
      }
      case 'icons:list': {
        const { values } = parseArgs({ args, options: { failing: { type: 'boolean' } } });
        ctx.out(['slug', 'icon', 'source', 'override', 'fetched_at', 'failures', 'next_try_at', 'last_error'].join('\t'));
        for (const state of await repository.states({ failingOnly: values.failing === true })) {
          ctx.out(
            [
              state.slug,
              state.version ?? '-',
              state.sourceUrl ?? '-',
              state.overrideFile ? 'file' : (state.overrideUrl ?? '-'),
              state.fetchedAt?.toISOString() ?? '-',
              state.failures,
              state.nextTryAt?.toISOString() ?? 'now',
              state.lastError ?? '-',
            ].join('\t'),
          );
        }
        return 0;
      }
      default:
        throw new OutboundCommandError(`unknown command "${command}"`, 2);
    }
  } catch (error) {
    if (error instanceof NotAnIconError) throw new OutboundCommandError(`not accepted as an icon: ${error.message}`, 1);
    throw error;
  } finally {
    await fetcher.close();
  }
}
