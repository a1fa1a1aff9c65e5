import fs from 'node:fs';
import type { Knex } from 'knex';
import type { KeyVersion } from '../auth/key-version';
import type { RequestLimiter } from '../ratelimit/request-limiter';
import type { OutboundCommandContext } from './outbound-commands';

export class UsageError extends Error {}
export class CommandError extends Error {}

export interface AdminContext extends Omit<OutboundCommandContext, 'db' | 'out' | 'err'> {
  db: Knex;
  /** Present when REDIS_URL is configured: lets key:list show the current hour's usage. */
  limiter?: RequestLimiter;
  defaultRateLimitPerHour: number;
  /**
   * The version that replicas check their cached keys against (see auth/key-version.ts); moved after
   * every change to a key. Absent without Redis on a Postgres database: replicas see the change when
   * their cached entry expires.
   */
  keyVersion?: KeyVersion;
  /** What the operator piped in (an editor's password with --password-stdin). */
  input?: string;
  out(line: string): void;
  err(line: string): void;
}

/** A file the operator names, as bytes (a OneNav database is binary). */
export function readFileBytes(path: string | undefined): Buffer {
  if (!path) throw new UsageError('missing file path');
  try {
    return fs.readFileSync(path);
  } catch (error) {
    throw new CommandError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** A file the operator names, as text; a missing or unreadable one is the operator's error, not a fault. */
export function readFile(path: string | undefined): string {
  if (!path) throw new UsageError('missing file path');
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (error) {
    throw new CommandError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
