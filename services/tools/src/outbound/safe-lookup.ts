import dns from 'node:dns';
import net from 'node:net';
import type { AddressPolicy } from './address-policy';
import { BLOCKED_ADDRESS_CODE } from './outbound-error';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; tests pass their own to make a name point at loopback. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

function blocked(hostname: string, address: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${address}, which outbound fetches may not reach`);
  error.code = BLOCKED_ADDRESS_CODE;
  return error;
}

/**
 * A `lookup` for net/tls connect (given to undici's connector): the socket connects to exactly the
 * addresses checked here, so a DNS answer that changes between check and connect (rebinding) cannot
 * slip a private address in. A name with any refused address is refused whole.
 */
export function createSafeLookup(policy: AddressPolicy, resolve: Resolver = systemResolver) {
  return (hostname: string, options: dns.LookupOptions | number | LookupCallback, maybeCallback?: LookupCallback): void => {
    const callback = (typeof options === 'function' ? options : maybeCallback) as LookupCallback;
    const wantsAll = typeof options === 'object' && options !== null && options.all === true;
    const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
    const resolved: Promise<ResolvedAddress[]> = net.isIP(bare) ? Promise.resolve([{ address: bare, family: net.isIP(bare) === 6 ? 6 : 4 }]) : resolve(bare);
    resolved.then(
      (addresses) => {
        if (addresses.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = 'ENOTFOUND';
          return callback(error, '');
        }
        const refused = addresses.find(({ address }) => !policy.allows(address));
        if (refused) return callback(blocked(hostname, refused.address), '');
        if (wantsAll) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}
