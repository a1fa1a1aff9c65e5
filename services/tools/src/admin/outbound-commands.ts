import type { Knex } from 'knex';
import type { FetcherOptions } from '../outbound/fetcher';
import { OutboundCommandError, runIconCommand } from './icon-commands';
import { runLinkCommand } from './link-commands';

export { ICON_HELP } from './icon-commands';
export { LINK_HELP } from './link-commands';

/** What icons:* and links:* take from the admin context. */
export interface OutboundCommandContext {
  db: Knex;
  /** Settings of the outbound fetcher; absent: the defaults, public addresses only. */
  outbound?: FetcherOptions;
  iconRefreshDays?: number;
  linkCheckIntervalHours?: number;
  /** Pauses before a failing link is retried; tests shorten them. */
  linkRetryDelaysMs?: number[];
  out(line: string): void;
  err(line: string): void;
}

export const isOutboundCommand = (command: string | undefined): command is string => command?.startsWith('icons:') === true || command?.startsWith('links:') === true;

/** Runs an icons:* or links:* command; prints its own errors and returns the exit status. */
export async function runOutboundCommand(command: string, args: string[], ctx: OutboundCommandContext): Promise<number> {
  const base = { db: ctx.db, outbound: ctx.outbound ?? {}, iconRefreshDays: ctx.iconRefreshDays ?? 30, out: ctx.out, err: ctx.err };
  try {
    if (command.startsWith('icons:')) return await runIconCommand(command, args, base);
    return await runLinkCommand(command, args, { ...base, linkCheckIntervalHours: ctx.linkCheckIntervalHours ?? 24, retryDelaysMs: ctx.linkRetryDelaysMs });
  } catch (error) {
    const usage = (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!(error instanceof OutboundCommandError) && !usage) throw error;
    ctx.err(`error: ${(error as Error).message}`);
    if (usage || (error as OutboundCommandError).status === 2) ctx.err('run with --help for usage');
    return usage ? 2 : (error as OutboundCommandError).status;
  }
}
