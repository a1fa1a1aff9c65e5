/** The only place the tool directory's response envelopes are built. */
export interface SuccessEnvelope<T> {
  success: true;
  data: T;
}

export interface ErrorEnvelope {
  success: false;
  error: { code: number; message: string };
}

export function ok<T>(data: T): SuccessEnvelope<T> {
  return { success: true, data };
}

export function fail(status: number, message: string): ErrorEnvelope {
  return { success: false, error: { code: status, message } };
}
