import type { Message } from './messages';

export interface SuccessEnvelope<T> {
  code: 0;
  msg: string;
  data?: T;
}
export interface FailureEnvelope {
  code: 1;
  msg: Message;
}

/** The only place a success envelope is built. Pass no data for responses that carry none (delete). */
export function ok<T>(msg: Message, data?: T): SuccessEnvelope<T> {
  return data === undefined ? { code: 0, msg } : { code: 0, msg, data };
}

/** The only place a failure envelope is built. */
export function fail(msg: Message): FailureEnvelope {
  return { code: 1, msg };
}
