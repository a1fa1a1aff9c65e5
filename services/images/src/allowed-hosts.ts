/** `PUBLIC_HOSTS`: the hosts whose requests get links on their own origin (see http/public-base.ts). */

/** One allowed host: a name or address, with a port or without one (then any port of it). */
export interface AllowedHost {
  hostname: string;
  port: string | null;
}

const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*)(?::(\d{1,5}))?$/;

/** Parses `host[:port]`, lower-cased; null when it is not one (a scheme, a path, a wildcard, a user…). */
export function parseHost(value: string): AllowedHost | null {
  const match = HOST_PATTERN.exec(value.trim().toLowerCase());
  if (!match) return null;
  const port = match[2] ?? null;
  if (port !== null && (Number(port) < 1 || Number(port) > 65535)) return null;
  return { hostname: match[1]!, port };
}

/** Parses the comma-separated `PUBLIC_HOSTS`; throws naming the first entry that is not a host. */
export function parseAllowedHosts(raw: string): AllowedHost[] {
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.map((entry) => {
    const host = parseHost(entry);
    if (!host) throw new Error(`"${entry}" is not a host name or address with an optional port (no scheme, path or wildcard)`);
    return host;
  });
}
