import net from 'node:net';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { createAddressPolicy, type AddressPolicy, type parseCidrList } from './address-policy';
import { classifyNetworkError, OutboundError } from './outbound-error';
import { createSafeLookup, type Resolver } from './safe-lookup';

export interface FetchRequest {
  url: string;
  method?: 'GET' | 'HEAD';
  /** The largest body accepted, after decompression; a larger one fails with 'too-large'. */
  maxBytes: number;
  /** Read the body (GET) or drop it unread after the status (link checks need only the status). */
  readBody?: boolean;
  accept?: string;
  /** Overrides the fetcher's total time limit for this request (all redirects and the whole body). */
  timeoutMs?: number;
}

export interface FetchResponse {
  status: number;
  headers: Record<string, string>;
  /** The URL the response came from, after redirects. */
  url: string;
  redirects: number;
  body: Buffer;
}

export interface FetcherOptions {
  /** Ranges allowed although not public (OUTBOUND_ALLOW_CIDRS): tests on loopback only. */
  allowCidrs?: ReturnType<typeof parseCidrList>;
  /** How names resolve; tests make one point at loopback. */
  resolve?: Resolver;
  /** Everything (redirects, headers, body) must be done within this: a slow drip cannot hold a worker. */
  timeoutMs?: number;
  /** Time to connect, and then time to the response headers (first byte). */
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  maxRedirects?: number;
  userAgent?: string;
}

export interface Fetcher {
  fetch(request: FetchRequest): Promise<FetchResponse>;
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (compatible; ToolDirectoryBot/1.0)';

/** The fetcher's settings from the service's config; the User-Agent names the site, so owners can tell who asks. */
export function fetcherSettings(config: { outboundAllowCidrs: FetcherOptions['allowCidrs']; outboundTimeoutMs: number; publicBaseUrl: string | undefined }): FetcherOptions {
  return {
    allowCidrs: config.outboundAllowCidrs,
    timeoutMs: config.outboundTimeoutMs,
    userAgent: config.publicBaseUrl ? `Mozilla/5.0 (compatible; ToolDirectoryBot/1.0; +${config.publicBaseUrl}/)` : DEFAULT_USER_AGENT,
  };
}

function checkedUrl(policy: AddressPolicy, raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new OutboundError('bad-url', `not a URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('bad-url', `only http(s) may be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundError('bad-url', 'a URL with credentials is not fetched');
  url.hash = '';
  // net.connect skips the lookup for an IP literal, so a literal is checked here (it cannot rebind).
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !policy.allows(host)) throw new OutboundError('blocked-address', `${host} is an address outbound fetches may not reach`);
  return url;
}

function decoded(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer {
  const limits = { maxOutputLength: maxBytes };
  try {
    switch ((encoding ?? '').trim().toLowerCase()) {
      case '':
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, limits);
      case 'deflate':
        return zlib.inflateSync(body, limits);
      case 'br':
        return zlib.brotliDecompressSync(body, limits);
      default:
        throw new OutboundError('network', `unsupported content-encoding ${encoding}`);
    }
  } catch (error) {
    if (error instanceof RangeError || (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new OutboundError('too-large', `body over ${maxBytes} bytes once decompressed`);
    if (error instanceof OutboundError) throw error;
    throw new OutboundError('network', `cannot decompress the body: ${(error as Error).message}`);
  }
}

/** Drops a body unread; undici reports a destroyed body as an aborted request, which nobody here awaits. */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/**
 * The one way the service fetches from outside sites (icons, link checks): http(s) only; every
 * connection, redirects included, goes to an address checked by the safe lookup; limits on redirects,
 * connect time, time to first byte, total time and body size (counted as it arrives, chunked or not).
 */
export function createFetcher(options: FetcherOptions = {}): Fetcher {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 10_000;
  const policy = createAddressPolicy(options.allowCidrs);
  const lookup = createSafeLookup(policy, options.resolve);
  const agent = new Agent({
    // One TLS context for every connection. Without it tls.connect builds one per connection (5–7× the
    // main thread's time of a connect with a shared one, measured), and a link check of a large directory
    // opens one connection per site; the first one also built Node's root certificate store, 50 ms of the
    // main thread (under a profiler) in the middle of serving. Made here, that happens once, at start.
    connect: { lookup, timeout: options.connectTimeoutMs ?? 5_000, secureContext: tls.createSecureContext() },
    headersTimeout: firstByteTimeoutMs,
    bodyTimeout: firstByteTimeoutMs,
    keepAliveTimeout: 4_000,
    connections: 4,
  });

  async function once(url: URL, input: FetchRequest, signal: AbortSignal) {
    const response = await request(url, {
      dispatcher: agent,
      method: input.method ?? 'GET',
      signal,
      headers: {
        'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
        accept: input.accept ?? '*/*',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    return response;
  }

  async function readLimited(body: AsyncIterable<Buffer> & Parameters<typeof discard>[0], maxBytes: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) {
        discard(body);
        throw new OutboundError('too-large', `body over ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  return {
    async fetch(input) {
      const signal = AbortSignal.timeout(input.timeoutMs ?? timeoutMs);
      let url = checkedUrl(policy, input.url);
      try {
        for (let redirects = 0; ; redirects++) {
          const response = await once(url, input, signal);
          const headers = flatHeaders(response.headers);
          if (REDIRECTS.has(response.statusCode) && headers.location) {
            discard(response.body);
            if (redirects >= maxRedirects) throw new OutboundError('too-many-redirects', `more than ${maxRedirects} redirects`);
            url = checkedUrl(policy, headers.location, url);
            continue;
          }
          if (input.readBody === false || input.method === 'HEAD') {
            discard(response.body);
            return { status: response.statusCode, headers, url: url.href, redirects, body: Buffer.alloc(0) };
          }
          const declared = Number(headers['content-length']);
          if (Number.isFinite(declared) && declared > input.maxBytes) {
            discard(response.body);
            throw new OutboundError('too-large', `declared body of ${declared} bytes is over ${input.maxBytes}`);
          }
          const raw = await readLimited(response.body, input.maxBytes);
          return { status: response.statusCode, headers, url: url.href, redirects, body: decoded(raw, headers['content-encoding'], input.maxBytes) };
        }
      } catch (error) {
        if (signal.aborted && !(error instanceof OutboundError)) throw new OutboundError('timeout', `not done within ${input.timeoutMs ?? timeoutMs} ms`);
        throw classifyNetworkError(error);
      }
    },
    close: () => agent.close(),
  };
}
