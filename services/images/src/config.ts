import path from 'node:path';
import { z } from 'zod';
import { parseAllowedHosts, type AllowedHost } from './allowed-hosts';
import { DATABASE_URL_FORMAT, DEFAULT_TRUSTED_PROXIES, databaseTarget, parseTrustedProxies, resolveSecretFiles, type DatabaseTarget } from '@platform/kit';
import type { StorageBackend } from './storage/object-store';
import type { S3Settings } from './storage/s3-store';

const MIB = 1024 * 1024;
const DEV_THUMB_SECRET = 'dev-only-thumb-signing-secret-change-me-0123456789';
/** Development only: production requires its own (see TOKEN_ENCRYPTION_KEY). */
const DEV_TOKEN_ENCRYPTION_KEY = 'de7e10917d5c0b1ee1e55ea5e0000000000000000000000000000000000000de';

/** Values that ship in .env.example and the docs: whoever copied one has not set a secret. */
const PLACEHOLDER = /change[-_ ]?me|placeholder|example|dev-only/i;

/**
 * The NODE_ENV values under which an embedded (PGlite) database may run on the development keys,
 * which are public: anywhere else they would let anyone sign a deletion link.
 */
const DEVELOPMENT_NODE_ENVS = new Set(['development', 'test']);

const GENERATE = 'openssl rand -hex 32';

/** The variables that may instead come from a file named by `<NAME>_FILE` (compose or Kubernetes secrets). */
export const SECRET_VARIABLES = ['DATABASE_URL', 'THUMB_SIGNING_SECRET', 'TOKEN_ENCRYPTION_KEY', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const;

/**
 * A secret a person made up rather than generated: fewer than 8 different characters, or the steps
 * between neighbouring characters repeat, nine in ten of them at some period (aaaa…, passwordpassword…,
 * 0123…0123…, abcd…). Random values of the lengths asked for practically never do either.
 */
function isGuessableSecret(value: string): boolean {
  const chars = [...value];
  if (new Set(chars).size < 8) return true;
  const steps = chars.slice(1).map((char, i) => char.codePointAt(0)! - chars[i]!.codePointAt(0)!);
  for (let period = 1; period * 2 <= steps.length; period += 1) {
    let differing = 0;
    for (let i = period; i < steps.length; i += 1) if (steps[i] !== steps[i - period]) differing += 1;
    // Nine in ten: a run or a repetition with a break or a tail (abc…xyz0123, Secret1!Secret1!…!) counts too.
    if (differing * 10 <= steps.length - period) return true;
  }
  return false;
}

const GUESSABLE = `is too easy to guess (a repeating pattern or fewer than 8 different characters): set a random value made by ${GENERATE}`;

/** The password of a postgres:// URL, when it has one. */
function databasePassword(databaseUrl: string): string | null {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return null;
  try {
    return decodeURIComponent(new URL(databaseUrl).password) || null;
  } catch {
    return null;
  }
}

const intFromEnv = (fallback: number, min: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .transform((value) => Number(value))
    .pipe(z.number().int().min(min).max(Number.MAX_SAFE_INTEGER))
    .default(fallback);

/** The proxies whose X-Forwarded-For is believed (see parseTrustedProxies). */
const trustedProxiesFromEnv = z
  .string()
  .default(DEFAULT_TRUSTED_PROXIES)
  .transform((raw, ctx) => {
    try {
      return parseTrustedProxies(raw);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const schema = z
  .object({
    NODE_ENV: z.string().default('development'),
    PORT: intFromEnv(3001, 0).pipe(z.number().max(65535)),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: z.string().regex(DATABASE_URL_FORMAT, 'must be postgres://…, pglite:memory or pglite:<dir>').default('pglite:./data/images-db'),
    STORAGE_DIR: z.string().min(1).default('./data/images'),
    STORAGE_BACKEND: z.enum(['local', 's3'], { error: 'must be local or s3' }).default('local'),
    S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://minio:9000' }).optional(),
    S3_REGION: z.string().trim().regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1 (auto for R2)').default('us-east-1'),
    S3_BUCKET: z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3-63 lowercase letters, digits, dots and hyphens')
      .optional(),
    S3_PREFIX: z
      .string()
      .trim()
      .regex(/^(?!\/)[A-Za-z0-9!_.*'()\/-]*$/, "must be a key prefix of letters, digits and !_.*'()/- that does not start with /")
      .refine((prefix) => !/(^|\/)\.{1,2}(\/|$)/.test(prefix) && !prefix.includes('//'), 'must not contain empty, . or .. segments')
      .transform((prefix) => (prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`))
      .default(''),
    S3_FORCE_PATH_STYLE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
    S3_ACCESS_KEY_ID: z.string().trim().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().trim().min(1).optional(),
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .default('http://localhost:8080')
      .transform((value) => value.replace(/\/+$/, '')),
    PUBLIC_HOSTS: z
      .string()
      .default('')
      .transform((raw, ctx) => {
        try {
          return parseAllowedHosts(raw);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    THUMB_SIGNING_SECRET: z.string().optional(),
    TIME_ZONE: z
      .string()
      .default('Asia/Shanghai')
      .refine((zone) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      }, 'must be an IANA time zone such as Asia/Shanghai'),
    RECYCLE_RETENTION_DAYS: intFromEnv(30, 1),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    SHUTDOWN_TIMEOUT_MS: intFromEnv(10000, 0),
    // After SIGTERM: readyz 503 and Connection: close for this long before the port closes (docs/operating.md).
    SHUTDOWN_DRAIN_MS: intFromEnv(5000, 0).refine((ms) => ms <= 600_000, 'must be at most 600000'),
    MAX_UPLOAD_BYTES: intFromEnv(64 * MIB, 1),
    UPLOAD_MEMORY_BYTES: intFromEnv(64 * MIB, 0),
    TOKEN_ENCRYPTION_KEY: z
      .string()
      .trim()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (32 bytes, e.g. openssl rand -hex 32)')
      .optional(),
    SESSION_TTL_HOURS: intFromEnv(168, 1).pipe(z.number().max(8760, 'must be at most 8760 (a year)')),
    // The site settings: each one, when set, fixes its value (the admin page shows it and refuses edits).
    SITE_NAME: z.string().trim().min(1).max(64).optional(),
    REGISTRATION_ENABLED: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
    DATABASE_PREPARED_STATEMENTS: z.enum(['auto', 'true', 'false'], { error: 'must be auto, true or false' }).default('auto'),
    DATABASE_POOL_MAX: intFromEnv(10, 1),
    DATABASE_MIGRATIONS: z.enum(['apply', 'verify'], { error: 'must be apply or verify' }).default('apply'),
    REGISTRATION_GROUP: z.string().min(1).optional(),
    SIGN_IN_ATTEMPTS_PER_ADDRESS: intFromEnv(30, 1),
    SIGN_IN_FAILURES_PER_ACCOUNT: intFromEnv(5, 1),
    REGISTRATIONS_PER_ADDRESS: intFromEnv(5, 1),
    TRUSTED_PROXIES: trustedProxiesFromEnv,
  })
  .superRefine((env, ctx) => {
    if (env.STORAGE_BACKEND === 's3' && env.S3_BUCKET === undefined) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE_BACKEND=s3' });
    }
    if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
      ctx.addIssue({ code: 'custom', path: [env.S3_ACCESS_KEY_ID === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY'], message: 'must be set together with the other S3 key variable (or neither, for the SDK default credentials)' });
    }
    const developmentKeys = env.DATABASE_URL.startsWith('pglite:') && DEVELOPMENT_NODE_ENVS.has(env.NODE_ENV);
    const required = `is required unless DATABASE_URL is pglite and NODE_ENV is unset, development or test: set a random value made by ${GENERATE}`;
    const secret = env.THUMB_SIGNING_SECRET;
    if (secret === undefined) {
      if (!developmentKeys) ctx.addIssue({ code: 'custom', path: ['THUMB_SIGNING_SECRET'], message: required });
    } else if (PLACEHOLDER.test(secret)) {
      ctx.addIssue({ code: 'custom', path: ['THUMB_SIGNING_SECRET'], message: `is the placeholder from .env.example: set a random value (e.g. ${GENERATE})` });
    } else if (secret.length < 32) {
      ctx.addIssue({ code: 'custom', path: ['THUMB_SIGNING_SECRET'], message: `must be at least 32 characters: set a random value made by ${GENERATE}` });
    } else if (isGuessableSecret(secret)) {
      ctx.addIssue({ code: 'custom', path: ['THUMB_SIGNING_SECRET'], message: GUESSABLE });
    }
    const key = env.TOKEN_ENCRYPTION_KEY;
    if (key === undefined) {
      if (!developmentKeys) ctx.addIssue({ code: 'custom', path: ['TOKEN_ENCRYPTION_KEY'], message: required });
    } else if (key.toLowerCase() === DEV_TOKEN_ENCRYPTION_KEY || /^(.)\1+$/.test(key)) {
      ctx.addIssue({ code: 'custom', path: ['TOKEN_ENCRYPTION_KEY'], message: `is a placeholder: set a random value (e.g. ${GENERATE})` });
    } else if (isGuessableSecret(key.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['TOKEN_ENCRYPTION_KEY'], message: GUESSABLE });
    }
    if (env.NODE_ENV !== 'production') return;
    if (env.S3_SECRET_ACCESS_KEY !== undefined && PLACEHOLDER.test(env.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({ code: 'custom', path: ['S3_SECRET_ACCESS_KEY'], message: 'is a placeholder: set the store\'s real secret key' });
    }
    const password = databasePassword(env.DATABASE_URL);
    if (password !== null && PLACEHOLDER.test(password)) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: `has a placeholder password: set the Postgres password to a random value made by ${GENERATE}` });
    } else if (password !== null && isGuessableSecret(password)) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: `has a password that is too easy to guess (a repeating pattern or fewer than 8 different characters): set the Postgres password to a random value made by ${GENERATE}` });
    }
  });

/** A site setting's value as the environment fixes it; undefined: not fixed. */
export interface FixedSiteSettings {
  siteName: string | undefined;
  registrationEnabled: boolean | undefined;
  defaultGroup: string | undefined;
}

export interface ImagesConfig {
  readonly nodeEnv: string;
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly database: DatabaseTarget;
  readonly storageDir: string;
  /** Where new uploads are stored; each image row remembers its own. */
  readonly storageBackend: StorageBackend;
  /** The bucket, when S3_BUCKET is set (the s3 backend, or a migration from or to it). */
  readonly s3: Readonly<S3Settings> | undefined;
  readonly publicBaseUrl: string;
  /** Hosts whose requests get links on their own origin instead of `publicBaseUrl` (http/public-base.ts). */
  readonly publicHosts: readonly AllowedHost[];
  readonly thumbSigningSecret: string;
  readonly timeZone: string;
  readonly recycleRetentionDays: number;
  readonly logLevel: string;
  readonly shutdownTimeoutMs: number;
  readonly shutdownDrainMs: number;
  readonly maxUploadBytes: number;
  /** Upload bodies held in memory at once, across requests (see upload-receiver.ts); 0: every upload goes through tmp/. */
  readonly uploadMemoryBytes: number;
  /** AES-256-GCM key (32 bytes) sealing the account tokens, which the account area shows. */
  readonly tokenEncryptionKey: Buffer;
  readonly sessionTtlHours: number;
  /**
   * The site settings the environment fixes (SITE_NAME, REGISTRATION_ENABLED, REGISTRATION_GROUP):
   * each one set wins over what admins store; unset ones are the admins' (src/settings/site-settings.ts).
   */
  readonly fixedSettings: Readonly<FixedSiteSettings>;
  /**
   * The hot statements as named prepared statements on a Postgres server: true, false (unnamed, for a
   * pooler in transaction mode), or auto (named only when the service reaches Postgres without a pooler).
   */
  readonly preparedStatements: 'auto' | boolean;
  /** Connections this replica opens at most (DATABASE_POOL_MAX). */
  readonly databasePoolMax: number;
  /** apply: migrate at start (embedded, npm start, tests); verify: refuse to start on a schema older than this build. */
  readonly migrations: 'apply' | 'verify';
  /** Per 15 minutes: sign-in (and registration) attempts from one client address. */
  readonly signInAttemptsPerAddress: number;
  /** Per 15 minutes: failed sign-ins to one account name, after which it is locked for the rest of the window. */
  readonly signInFailuresPerAccount: number;
  /** Per hour: registrations from one client address (each also counts as a sign-in attempt). */
  readonly registrationsPerAddress: number;
  /** The peers whose X-Forwarded-For names the client (Express's `trust proxy`); anyone else is the client. */
  readonly trustedProxies: readonly string[];
}

/** Parses the environment once; the only place in the service that reads env variables. */
export function loadConfig(env: Record<string, string | undefined>): ImagesConfig {
  // Empty strings count as unset, as they do in most .env tooling.
  const present = Object.fromEntries(Object.entries(resolveSecretFiles(env, SECRET_VARIABLES)).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = issue?.path.join('.') || 'environment';
    throw new Error(`${variable} ${issue?.message ?? 'is invalid'}`.replace(/\s+/g, ' '));
  }
  const value = parsed.data;
  const cwd = process.cwd();
  return Object.freeze({
    nodeEnv: value.NODE_ENV,
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL,
    database: Object.freeze(databaseTarget(value.DATABASE_URL, cwd)),
    storageDir: path.resolve(cwd, value.STORAGE_DIR),
    storageBackend: value.STORAGE_BACKEND,
    s3:
      value.S3_BUCKET === undefined
        ? undefined
        : Object.freeze({
            endpoint: value.S3_ENDPOINT?.replace(/\/+$/, ''),
            region: value.S3_REGION,
            bucket: value.S3_BUCKET,
            prefix: value.S3_PREFIX,
            forcePathStyle: value.S3_FORCE_PATH_STYLE === 'true',
            credentials:
              value.S3_ACCESS_KEY_ID !== undefined && value.S3_SECRET_ACCESS_KEY !== undefined
                ? Object.freeze({ accessKeyId: value.S3_ACCESS_KEY_ID, secretAccessKey: value.S3_SECRET_ACCESS_KEY })
                : undefined,
          }),
    publicBaseUrl: value.PUBLIC_BASE_URL,
    publicHosts: Object.freeze(value.PUBLIC_HOSTS.map((host) => Object.freeze(host))),
    thumbSigningSecret: value.THUMB_SIGNING_SECRET ?? DEV_THUMB_SECRET,
    timeZone: value.TIME_ZONE,
    recycleRetentionDays: value.RECYCLE_RETENTION_DAYS,
    logLevel: value.LOG_LEVEL,
    shutdownTimeoutMs: value.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: value.SHUTDOWN_DRAIN_MS,
    maxUploadBytes: value.MAX_UPLOAD_BYTES,
    uploadMemoryBytes: value.UPLOAD_MEMORY_BYTES,
    tokenEncryptionKey: Buffer.from(value.TOKEN_ENCRYPTION_KEY ?? DEV_TOKEN_ENCRYPTION_KEY, 'hex'),
    sessionTtlHours: value.SESSION_TTL_HOURS,
    fixedSettings: Object.freeze({
      siteName: value.SITE_NAME,
      registrationEnabled: value.REGISTRATION_ENABLED === undefined ? undefined : value.REGISTRATION_ENABLED === 'true',
      defaultGroup: value.REGISTRATION_GROUP,
    }),
    preparedStatements: value.DATABASE_PREPARED_STATEMENTS === 'auto' ? 'auto' : value.DATABASE_PREPARED_STATEMENTS === 'true',
    databasePoolMax: value.DATABASE_POOL_MAX,
    migrations: value.DATABASE_MIGRATIONS,
    signInAttemptsPerAddress: value.SIGN_IN_ATTEMPTS_PER_ADDRESS,
    signInFailuresPerAccount: value.SIGN_IN_FAILURES_PER_ACCOUNT,
    registrationsPerAddress: value.REGISTRATIONS_PER_ADDRESS,
    trustedProxies: value.TRUSTED_PROXIES,
  });
}
