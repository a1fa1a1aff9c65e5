/**
 * Where the limiter's Redis is, from REDIS_URL: one server, a Sentinel set, or a Cluster.
 *
 *   redis://[user:password@]host:port[/db]            one server (rediss:// for TLS)
 *   redis+sentinel://[user:password@]host:port,host:port/<master name>[?db=N&sentinel_password=…]
 *   redis+cluster://[user:password@]host:port,host:port   any of the Cluster's nodes; the rest are discovered
 *
 * The user and password are the data nodes'; a Sentinel with its own password takes `sentinel_password`.
 */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | { kind: 'sentinel'; sentinels: HostPort[]; masterName: string; db: number; username?: string; password?: string; sentinelPassword?: string }
  | { kind: 'cluster'; nodes: HostPort[]; username?: string; password?: string };

export interface HostPort {
  host: string;
  port: number;
}

export const REDIS_URL_FORMAT = 'redis://…, rediss://…, redis+sentinel://host:port,…/<master name> or redis+cluster://host:port,…';

const SCHEME = /^(rediss?|redis\+sentinel|redis\+cluster):\/\//i;

/** Parses REDIS_URL; throws an Error whose message says what is wrong, for the config's one-line refusal. */
export function parseRedisTarget(url: string): RedisTarget {
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (!scheme) throw new Error(`must be ${REDIS_URL_FORMAT}`);
  if (scheme === 'redis' || scheme === 'rediss') return { kind: 'server', url };

  // URL cannot parse a list of hosts: split the authority by hand, then let URL read each part.
  const rest = url.slice(scheme.length + 3);
  const slash = rest.search(/[/?]/);
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const tail = slash === -1 ? '' : rest.slice(slash);
  const at = authority.lastIndexOf('@');
  const credentials = at === -1 ? '' : authority.slice(0, at);
  const hostList = at === -1 ? authority : authority.slice(at + 1);
  const parsedTail = new URL(`http://placeholder${tail.startsWith('?') ? `/${tail}` : tail}`);
  const [rawUser, ...rawPassword] = credentials === '' ? [] : credentials.split(':');
  const username = rawUser ? decodeURIComponent(rawUser) : undefined;
  const password = rawPassword.length > 0 ? decodeURIComponent(rawPassword.join(':')) : undefined;
  const hosts = hostList.split(',').map(parseHostPort);
  if (hosts.length === 0 || hostList === '') throw new Error(`names no host: must be ${REDIS_URL_FORMAT}`);

  if (scheme === 'redis+cluster') {
    if (parsedTail.pathname !== '/' && parsedTail.pathname !== '') throw new Error('redis+cluster:// takes no path (a Cluster has one database)');
    return { kind: 'cluster', nodes: hosts, username, password };
  }
  const masterName = decodeURIComponent(parsedTail.pathname.replace(/^\//, ''));
  if (!masterName || masterName.includes('/')) throw new Error('redis+sentinel:// needs the master name as its path: redis+sentinel://host:26379,…/mymaster');
  const dbParam = parsedTail.searchParams.get('db') ?? '0';
  if (!/^\d{1,2}$/.test(dbParam)) throw new Error('redis+sentinel:// db must be a database number (0-15)');
  return {
    kind: 'sentinel',
    sentinels: hosts,
    masterName,
    db: Number(dbParam),
    username,
    password,
    sentinelPassword: parsedTail.searchParams.get('sentinel_password') ?? undefined,
  };
}

function parseHostPort(text: string): HostPort {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(text.trim());
  const port = Number(match?.[2] ?? '');
  if (!match || !match[2] || port < 1 || port > 65535) throw new Error(`"${text}" is not host:port`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}
