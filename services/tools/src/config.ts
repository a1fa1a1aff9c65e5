import { z } from 'zod';
import { parseCidrList } from './outbound/address-policy';
import { parseRedisTarget } from './ratelimit/redis-target';
import { DATABASE_URL_FORMAT, DEFAULT_TRUSTED_PROXIES, databaseTarget, parseTrustedProxies, resolveSecretFiles, type DatabaseTarget } from '@platform/kit';

/** The variables that may instead come from a file named by `<NAME>_FILE` (compose or Kubernetes secrets). */
export const SECRET_VARIABLES = ['DATABASE_URL', 'REDIS_URL'] as const;

const positiveInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return fallback;
      if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
        ctx.addIssue({ code: 'custom', message: `must be a positive integer, got "${raw}"` });
        return z.NEVER;
      }
      return Number(raw);
    });

const nonNegativeInt = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return fallback;
      if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) {
        ctx.addIssue({ code: 'custom', message: `must be a non-negative integer, got "${raw}"` });
        return z.NEVER;
      }
      return Number(raw);
    });

function isHttpOrigin(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.pathname === '/' && parsed.search === '' && parsed.hash === '' && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/** Values that ship in .env.example and the docs: whoever copied one has not set a secret. */
const PLACEHOLDER = /change[-_ ]?me|placeholder|example|dev-only/i;

function placeholderPassword(databaseUrl: string): boolean {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return false;
  try {
    return PLACEHOLDER.test(decodeURIComponent(new URL(databaseUrl).password));
  } catch {
    return false;
  }
}

/** The proxies whose X-Forwarded-For is believed (see parseTrustedProxies); unset or empty: the default. */
const trustedProxiesFromEnv = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    try {
      return parseTrustedProxies(raw === undefined || raw.trim() === '' ? DEFAULT_TRUSTED_PROXIES : raw);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

/** on/off switches: unset keeps the default. */
const onOff = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const value = raw?.trim().toLowerCase();
      if (value === undefined || value === '') return fallback;
      if (['on', 'true', '1', 'yes'].includes(value)) return true;
      if (['off', 'false', '0', 'no'].includes(value)) return false;
      ctx.addIssue({ code: 'custom', message: `must be on or off, got "${raw}"` });
      return z.NEVER;
    });

const cidrList = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    try {
      return parseCidrList(raw ?? '');
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const schema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: nonNegativeInt(3002).refine((port) => port <= 65535, 'must be at most 65535'),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z.string().regex(DATABASE_URL_FORMAT, 'must be postgres://…, pglite:memory or pglite:<dir>').default('pglite:./data/tools-db'),
  DATABASE_POOL_MAX: positiveInt(10),
  DATABASE_MIGRATIONS: z.enum(['apply', 'verify'], { error: 'must be apply or verify' }).default('apply'),
  REDIS_URL: z
    .string()
    .optional()
    .transform((url) => (url === undefined || url.trim() === '' ? undefined : url.trim()))
    .superRefine((url, ctx) => {
      if (url === undefined) return;
      try {
        parseRedisTarget(url);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  RATE_LIMIT_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_:.-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_:.-]').default('tools_rl'),
  DEFAULT_RATE_LIMIT_PER_HOUR: positiveInt(1000),
  ANONYMOUS_RATE_LIMIT_PER_HOUR: positiveInt(1000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Node's timers hold at most 2^31-1 ms; a larger value would fire at once and cut in-flight requests.
  SHUTDOWN_TIMEOUT_MS: positiveInt(10000).refine((ms) => ms <= 2_147_483_647, 'must be at most 2147483647'),
  // After SIGTERM: readyz 503 and Connection: close for this long before the port closes (docs/operating.md).
  SHUTDOWN_DRAIN_MS: nonNegativeInt(5000).refine((ms) => ms <= 600_000, 'must be at most 600000'),
  STATS_CACHE_TTL_MS: nonNegativeInt(5000),
  READ_CACHE_TTL_MS: nonNegativeInt(1000),
  SITE_CACHE_TTL_MS: nonNegativeInt(60000),
  PUBLIC_BASE_URL: z
    .string()
    .optional()
    .transform((url) => (url === undefined || url.trim() === '' ? undefined : url.trim().replace(/\/+$/, '')))
    .refine((url) => url === undefined || isHttpOrigin(url), 'must be an http(s) origin without a path, e.g. https://tools.example.com (the website lives at /)'),
  TRUSTED_PROXIES: trustedProxiesFromEnv,
  OUTBOUND_ALLOW_CIDRS: cidrList,
  OUTBOUND_TIMEOUT_MS: positiveInt(15000).refine((ms) => ms <= 120_000, 'must be at most 120000'),
  ICON_FETCH: onOff(true),
  ICON_REFRESH_DAYS: positiveInt(30),
  LINK_CHECK: onOff(true),
  LINK_CHECK_INTERVAL_HOURS: positiveInt(24),
}).superRefine((env, ctx) => {
  if (env.NODE_ENV === 'production' && placeholderPassword(env.DATABASE_URL)) {
    ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: 'has a placeholder password: set the Postgres password to a random value made by openssl rand -hex 32' });
  }
});

export interface ToolsConfig {
  readonly nodeEnv: string;
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly database: DatabaseTarget;
  /** Connections this replica opens at most (DATABASE_POOL_MAX). */
  readonly databasePoolMax: number;
  /** apply: migrate at start (embedded, npm start, tests); verify: refuse to start on a schema older than this build. */
  readonly migrations: 'apply' | 'verify';
  readonly redisUrl: string | undefined;
  readonly rateLimitKeyPrefix: string;
  readonly defaultRateLimitPerHour: number;
  readonly anonymousRateLimitPerHour: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly shutdownTimeoutMs: number;
  readonly shutdownDrainMs: number;
  /** How long stats and the category list may be served from the in-process cache. 0 disables the cache. */
  readonly statsCacheTtlMs: number;
  /** How long a tools list page or search result may be served from the in-process cache. 0 disables it. */
  readonly readCacheTtlMs: number;
  /**
   * How old the data of a website page may be (visit counts, most visited). Catalog changes drop it sooner:
   * each process reads the catalog revision at most once a second. 0 disables the site cache.
   */
  readonly siteCacheTtlMs: number;
  /** Where visitors reach the website (canonical URLs, sitemap); unset: the request's own Host. */
  readonly publicBaseUrl: string | undefined;
  /** The peers whose X-Forwarded-For names the client (Express's `trust proxy`); anyone else is the client. */
  readonly trustedProxies: readonly string[];
  /**
   * Address ranges outbound fetches (icons, link checks) may reach although they are not public. For
   * tests that start sites on loopback only: in production it would reopen the SSRF door. Empty by default.
   */
  readonly outboundAllowCidrs: ReturnType<typeof parseCidrList>;
  /** The whole of one outbound fetch (redirects, headers, body) must finish within this. */
  readonly outboundTimeoutMs: number;
  /** Whether this process fetches tools' icons in the background (one replica at a time). */
  readonly iconFetch: boolean;
  /** A stored icon is fetched again after this many days. */
  readonly iconRefreshDays: number;
  /** Whether this process checks tools' links in the background (one replica at a time). */
  readonly linkCheck: boolean;
  /** Each tool's link is checked again after this many hours. */
  readonly linkCheckIntervalHours: number;
}

/** Parses the environment once into a frozen config; throws a one-line Error naming the bad variable. */
export function loadConfig(env: Record<string, string | undefined>): ToolsConfig {
  const withSecrets = resolveSecretFiles(env, SECRET_VARIABLES);
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) picked[key] = withSecrets[key];
  const result = schema.safeParse(picked);
  if (!result.success) {
    const issue = result.error.issues[0];
    const variable = issue?.path.join('.') ?? 'environment';
    throw new Error(`${variable} ${issue?.message ?? 'is invalid'}`);
  }
  const parsed = result.data;
  return Object.freeze({
    nodeEnv: parsed.NODE_ENV,
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    database: Object.freeze(databaseTarget(parsed.DATABASE_URL, process.cwd())),
    databasePoolMax: parsed.DATABASE_POOL_MAX,
    migrations: parsed.DATABASE_MIGRATIONS,
    redisUrl: parsed.REDIS_URL,
    rateLimitKeyPrefix: parsed.RATE_LIMIT_KEY_PREFIX,
    defaultRateLimitPerHour: parsed.DEFAULT_RATE_LIMIT_PER_HOUR,
    anonymousRateLimitPerHour: parsed.ANONYMOUS_RATE_LIMIT_PER_HOUR,
    logLevel: parsed.LOG_LEVEL,
    shutdownTimeoutMs: parsed.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: parsed.SHUTDOWN_DRAIN_MS,
    statsCacheTtlMs: parsed.STATS_CACHE_TTL_MS,
    readCacheTtlMs: parsed.READ_CACHE_TTL_MS,
    siteCacheTtlMs: parsed.SITE_CACHE_TTL_MS,
    publicBaseUrl: parsed.PUBLIC_BASE_URL,
    trustedProxies: parsed.TRUSTED_PROXIES,
    outboundAllowCidrs: parsed.OUTBOUND_ALLOW_CIDRS,
    outboundTimeoutMs: parsed.OUTBOUND_TIMEOUT_MS,
    iconFetch: parsed.ICON_FETCH,
    iconRefreshDays: parsed.ICON_REFRESH_DAYS,
    linkCheck: parsed.LINK_CHECK,
    linkCheckIntervalHours: parsed.LINK_CHECK_INTERVAL_HOURS,
  });
}
