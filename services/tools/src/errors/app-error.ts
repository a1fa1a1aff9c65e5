import type { MessageKey } from './messages';

/**
 * An expected failure, named by its message key (and, for `badParameter`, what was wrong). The error
 * middleware answers it in the service's envelope with the key's text, this HTTP status and these
 * extra headers; anything else thrown is an unexpected fault (logged in full, answered with the
 * generic 500). Code compares `key` or `status`, never text.
 */
export class AppError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly detail = '',
  ) {
    super(detail ? `${key}: ${detail}` : key);
    this.name = 'AppError';
  }
}

export const badParameter = (what: string) => new AppError('badParameter', 400, {}, what);
export const notFound = () => new AppError('notFound', 404);
