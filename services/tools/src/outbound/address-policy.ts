import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound fetch may connect to: public unicast only. ipaddr.js names the special
 * ranges (private, loopback, link-local, unique-local, multicast, unspecified, CGNAT, reserved, ...);
 * anything it does not call "unicast" is refused. IPv4-mapped IPv6 is judged as the IPv4 it carries.
 */
export interface AddressPolicy {
  allows(address: string): boolean;
}

/** Unicast by ipaddr.js' reckoning, yet still not the public internet (or a tunnel to a private IPv4). */
const ALSO_REFUSED = [
  '0.0.0.0/8',
  '192.0.0.0/24',
  '198.18.0.0/15',
  '2002::/16', // 6to4: carries an IPv4 address, possibly a private one
  '2001::/32', // Teredo
  '64:ff9b::/96', // NAT64: carries an IPv4 address
  '64:ff9b:1::/48',
  'fec0::/10', // deprecated site-local
].map((cidr) => ipaddr.parseCIDR(cidr));

/** Parses a comma-separated CIDR list ("127.0.0.0/8, ::1/128"); throws on a malformed entry. */
export function parseCidrList(raw: string): ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      try {
        return ipaddr.parseCIDR(entry);
      } catch {
        throw new Error(`"${entry}" is not a CIDR range such as 127.0.0.0/8 or ::1/128`);
      }
    });
}

function normalized(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  // Zone ids ("fe80::1%eth0") are link-local by definition; ipaddr.js keeps them, so parse as is.
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

const inRange = (address: ipaddr.IPv4 | ipaddr.IPv6, [range, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]) =>
  address.kind() === range.kind() && address.match(range, bits);

/**
 * `allowed` lists ranges let through even though they are not public (OUTBOUND_ALLOW_CIDRS): for tests
 * that start sites on loopback, never for production.
 */
export function createAddressPolicy(allowed: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> = []): AddressPolicy {
  return {
    allows(raw) {
      const address = normalized(raw);
      if (!address) return false;
      if (allowed.some((range) => inRange(address, range))) return true;
      if (address.range() !== 'unicast') return false;
      return !ALSO_REFUSED.some((range) => inRange(address, range));
    },
  };
}
