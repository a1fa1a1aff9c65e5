import proxyaddr from 'proxy-addr';

/** Loopback and the private ranges a compose network uses: nginx beside the service. */
export const DEFAULT_TRUSTED_PROXIES = 'loopback, uniquelocal';

/**
 * The entries of a TRUSTED_PROXIES list (addresses, CIDR ranges, Express's presets), as Express's
 * `trust proxy` takes them; throws with the reason, naming the first entry proxy-addr cannot read.
 */
export function parseTrustedProxies(raw: string): readonly string[] {
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      throw new Error(`must be a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal: "${entry}" is none of them`);
    }
  }
  return Object.freeze(entries);
}
