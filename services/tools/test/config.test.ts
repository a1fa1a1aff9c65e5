import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';

describe('loadConfig', () => {
  it('when the environment is empty, then the documented defaults apply and the result is frozen', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      nodeEnv: 'development',
      port: 3002,
      host: '0.0.0.0',
      databaseUrl: 'pglite:./data/tools-db',
      databasePoolMax: 10,
      migrations: 'apply',
      database: { kind: 'pglite-dir', dir: path.resolve('data/tools-db') },
      redisUrl: undefined,
      rateLimitKeyPrefix: 'tools_rl',
      defaultRateLimitPerHour: 1000,
      anonymousRateLimitPerHour: 1000,
      logLevel: 'info',
      shutdownTimeoutMs: 10000,
      shutdownDrainMs: 5000,
      statsCacheTtlMs: 5000,
      readCacheTtlMs: 1000,
      siteCacheTtlMs: 60000,
      publicBaseUrl: undefined,
      trustedProxies: ['loopback', 'uniquelocal'],
      outboundAllowCidrs: [],
      outboundTimeoutMs: 15000,
      iconFetch: true,
      iconRefreshDays: 30,
      linkCheck: true,
      linkCheckIntervalHours: 24,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('when every variable is given, then each is parsed', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u@db:5432/tools',
      REDIS_URL: 'redis://redis:6379',
      RATE_LIMIT_KEY_PREFIX: 'rl',
      DEFAULT_RATE_LIMIT_PER_HOUR: '50',
      ANONYMOUS_RATE_LIMIT_PER_HOUR: '20',
      LOG_LEVEL: 'warn',
      SHUTDOWN_TIMEOUT_MS: '3000',
      STATS_CACHE_TTL_MS: '0',
      READ_CACHE_TTL_MS: '0',
      SITE_CACHE_TTL_MS: '0',
      PUBLIC_BASE_URL: 'https://tools.example.com/',
      TRUSTED_PROXIES: ' 10.1.2.3, 172.16.0.0/12,fd00::/8 ,loopback',
    });
    expect(config).toMatchObject({
      port: 8080,
      redisUrl: 'redis://redis:6379',
      defaultRateLimitPerHour: 50,
      anonymousRateLimitPerHour: 20,
      statsCacheTtlMs: 0,
      readCacheTtlMs: 0,
      siteCacheTtlMs: 0,
      publicBaseUrl: 'https://tools.example.com',
      trustedProxies: ['10.1.2.3', '172.16.0.0/12', 'fd00::/8', 'loopback'],
    });
    expect(loadConfig({ DATABASE_URL: 'pglite:memory', REDIS_URL: '' }).redisUrl).toBeUndefined();
    expect(loadConfig({ TRUSTED_PROXIES: '' }).trustedProxies).toEqual(['loopback', 'uniquelocal']);
  });

  it('when the outbound and background-job variables are given, then each is parsed', () => {
    const config = loadConfig({ OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8, ::1/128', OUTBOUND_TIMEOUT_MS: '5000', ICON_FETCH: 'off', ICON_REFRESH_DAYS: '7', LINK_CHECK: 'false', LINK_CHECK_INTERVAL_HOURS: '6' });
    expect(config.outboundAllowCidrs.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual(['127.0.0.0/8', '::1/128']);
    expect(config).toMatchObject({ outboundTimeoutMs: 5000, iconFetch: false, iconRefreshDays: 7, linkCheck: false, linkCheckIntervalHours: 6 });
  });

  it.each<[Record<string, string>, string]>([
    [{ PORT: 'eighty' }, 'PORT must be a non-negative integer, got "eighty"'],
    [{ PORT: '70000' }, 'PORT must be at most 65535'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be postgres://…, pglite:memory or pglite:<dir>'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL must be redis://…, rediss://…, redis+sentinel://host:port,…/<master name> or redis+cluster://host:port,…'],
    [{ DEFAULT_RATE_LIMIT_PER_HOUR: '0' }, 'DEFAULT_RATE_LIMIT_PER_HOUR must be a positive integer, got "0"'],
    [{ ANONYMOUS_RATE_LIMIT_PER_HOUR: '1.5' }, 'ANONYMOUS_RATE_LIMIT_PER_HOUR must be a positive integer, got "1.5"'],
    [{ RATE_LIMIT_KEY_PREFIX: 'has space' }, 'RATE_LIMIT_KEY_PREFIX must be 1-64 characters of [A-Za-z0-9_:.-]'],
    [{ SHUTDOWN_TIMEOUT_MS: '-1' }, 'SHUTDOWN_TIMEOUT_MS must be a positive integer, got "-1"'],
    [{ SHUTDOWN_TIMEOUT_MS: '9999999999' }, 'SHUTDOWN_TIMEOUT_MS must be at most 2147483647'],
    [{ SHUTDOWN_DRAIN_MS: '-5' }, 'SHUTDOWN_DRAIN_MS must be a non-negative integer, got "-5"'],
    [{ SHUTDOWN_DRAIN_MS: '600001' }, 'SHUTDOWN_DRAIN_MS must be at most 600000'],
    [{ SITE_CACHE_TTL_MS: 'soon' }, 'SITE_CACHE_TTL_MS must be a non-negative integer, got "soon"'],
    [{ OUTBOUND_ALLOW_CIDRS: '127.0.0.1' }, 'OUTBOUND_ALLOW_CIDRS "127.0.0.1" is not a CIDR range such as 127.0.0.0/8 or ::1/128'],
    [{ ICON_FETCH: 'maybe' }, 'ICON_FETCH must be on or off, got "maybe"'],
    [{ TRUSTED_PROXIES: 'nginx' }, 'TRUSTED_PROXIES must be a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal: "nginx" is none of them'],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES must be a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal: "10.0.0.0/33" is none of them'],
    [{ TRUSTED_PROXIES: 'loopback,,10.1.2.3' }, 'TRUSTED_PROXIES must be a comma-separated list of proxy addresses, CIDR ranges, loopback, linklocal or uniquelocal: "" is none of them'],
    ...['javascript:alert(1)', 'ftp://x.example', 'https://x.example/tools', 'https://x.example/?a=1', 'tools.example.com'].map(
      (url): [Record<string, string>, string] => [
        { PUBLIC_BASE_URL: url },
        'PUBLIC_BASE_URL must be an http(s) origin without a path, e.g. https://tools.example.com (the website lives at /)',
      ],
    ),
  ])('when given %p, then it throws one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new Error(message));
  });

  it('when LOG_LEVEL is unknown, then the error names LOG_LEVEL on one line', () => {
    let message = '';
    try {
      loadConfig({ LOG_LEVEL: 'loud' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.startsWith('LOG_LEVEL ')).toBe(true);
    expect(message).not.toContain('\n');
  });

  it('when production runs on the placeholder database password of .env.example, then loading refuses it with one line', () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: 'postgres://postgres:change-me-postgres@postgres:5432/tools' };
    expect(() => loadConfig(env)).toThrow('DATABASE_URL has a placeholder password: set the Postgres password to a random value made by openssl rand -hex 32');
    expect(loadConfig({ ...env, DATABASE_URL: 'postgres://postgres:Xk29fh3@postgres:5432/tools' }).nodeEnv).toBe('production');
    expect(loadConfig({ ...env, NODE_ENV: 'development' }).databaseUrl).toBe(env.DATABASE_URL);
  });

  describe('secrets from files (<NAME>_FILE, as compose and Kubernetes mount them)', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'tools-secrets-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const secretFile = (name: string, content: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, content);
      return file;
    };

    it('when DATABASE_URL and REDIS_URL are given as files, then their contents without the trailing newline are used', () => {
      const config = loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL_FILE: secretFile('db', 'postgres://tools:Qz8vN2pLw7@postgres:5432/tools\n'),
        REDIS_URL_FILE: secretFile('redis', 'redis://:Rk3wPq9ZmV2x@redis:6379\n'),
      });
      expect(config.databaseUrl).toBe('postgres://tools:Qz8vN2pLw7@postgres:5432/tools');
      expect(config.redisUrl).toBe('redis://:Rk3wPq9ZmV2x@redis:6379');
    });

    it('when a secret file holds the placeholder password, then it is refused as the variable would be', () => {
      expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL_FILE: secretFile('db', 'postgres://postgres:change-me@postgres:5432/tools\n') })).toThrow(
        'DATABASE_URL has a placeholder password',
      );
    });

    it('when both the variable and its _FILE are set, then loading is refused with one line naming both', () => {
      expect(() => loadConfig({ REDIS_URL: 'redis://redis:6379', REDIS_URL_FILE: secretFile('redis', 'redis://redis:6379') })).toThrow(
        /^REDIS_URL and REDIS_URL_FILE are both set: set only one of them$/,
      );
    });

    it('when the file cannot be read, then loading is refused naming the variable and the path', () => {
      const missing = path.join(dir, 'absent');
      expect(() => loadConfig({ DATABASE_URL_FILE: missing })).toThrow(new Error(`DATABASE_URL_FILE names a file that cannot be read: ${missing} (ENOENT)`));
    });
  });
});
