/**
 * An expected failure. The error middleware answers it in the service's envelope with this message,
 * this HTTP status and these extra headers; anything else thrown is an unexpected fault (logged in
 * full, answered with the generic 500).
 */
export class AppError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}
