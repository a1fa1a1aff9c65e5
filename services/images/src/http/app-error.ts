import type { Message } from './messages';

/** An expected failure: rendered as HTTP 200 (unless a status is given) with code 1 and this message. */
export class AppError extends Error {
  constructor(
    readonly envelopeMessage: Message,
    readonly httpStatus = 200,
  ) {
    super(envelopeMessage);
    this.name = 'AppError';
  }
}
