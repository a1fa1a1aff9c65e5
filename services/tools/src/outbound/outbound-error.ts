/** Why an outbound fetch did not produce a response; callers (icons, link checks) decide what each means. */
export type OutboundFailure =
  | 'bad-url' // not an absolute http(s) URL, or one with credentials in it
  | 'blocked-address' // the name resolved to (or is) an address the policy refuses
  | 'dns' // the name does not resolve
  | 'refused' // connection refused or reset
  | 'timeout' // no connection, no first byte or no whole body within its limit
  | 'too-large' // the body is larger than the caller's limit
  | 'too-many-redirects'
  | 'tls' // certificate or handshake failure
  | 'network'; // anything else on the way

export class OutboundError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** The error code the safe lookup fails a connection with, so it can be told from a real DNS failure. */
export const BLOCKED_ADDRESS_CODE = 'ERR_OUTBOUND_BLOCKED_ADDRESS';

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ENODATA', 'ESERVFAIL', 'ENONAME', 'EAI_NONAME']);
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'ABORT_ERR']);

/** Turns what undici, net or dns threw into an OutboundError (the cause chain is searched for a known code). */
export function classifyNetworkError(error: unknown): OutboundError {
  if (error instanceof OutboundError) return error;
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: string }).code ?? '';
    const message = (current as Error).message ?? String(current);
    if (code === BLOCKED_ADDRESS_CODE) return new OutboundError('blocked-address', message);
    if (DNS_CODES.has(code)) return new OutboundError('dns', message);
    if (REFUSED_CODES.has(code)) return new OutboundError('refused', message);
    if (TIMEOUT_CODES.has(code) || (current as Error).name === 'TimeoutError' || (current as Error).name === 'AbortError') return new OutboundError('timeout', message);
    if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL')) return new OutboundError('tls', message);
  }
  return new OutboundError('network', (error as Error)?.message ?? String(error));
}
