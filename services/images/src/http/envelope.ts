/** The only place the image-hosting envelopes are built. */
export interface SuccessEnvelope<T> {
  code: 0;
  msg: string;
  data?: T;
}

export interface FailureEnvelope {
  code: 1;
  msg: string;
}

/** Pass no data for answers that carry none (delete). */
export function ok<T>(msg: string, data?: T): SuccessEnvelope<T> {
  return data === undefined ? { code: 0, msg } : { code: 0, msg, data };
}

export function fail(msg: string): FailureEnvelope {
  return { code: 1, msg };
}
