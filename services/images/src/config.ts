import path from 'node:path';
import { z } from 'zod';
import { DATABASE_URL_FORMAT, databaseTarget, type DatabaseTarget } from './db/database-target';

const MIB = 1024 * 1024;
const DEV_THUMB_SECRET = 'dev-only-thumb-signing-secret-change-me-0123456789';

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

const intFromEnv = (fallback: number, min: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a non-negative integer')
    .transform((value) => Number(value))
    .pipe(z.number().int().min(min).max(Number.MAX_SAFE_INTEGER))
    .default(fallback);

const schema = z
  .object({
    NODE_ENV: z.string().default('development'),
    PORT: intFromEnv(3001, 0).pipe(z.number().max(65535)),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: z.string().regex(DATABASE_URL_FORMAT, 'must be postgres://…, pglite:memory or pglite:<dir>').default('pglite:./data/images-db'),
    STORAGE_DIR: z.string().min(1).default('./data/images'),
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .default('http://localhost:8080')
      .transform((value) => value.replace(/\/+$/, '')),
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
    MAX_UPLOAD_BYTES: intFromEnv(64 * MIB, 1),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV !== 'production') return;
    const secret = env.THUMB_SIGNING_SECRET ?? '';
    if (secret.length < 32) {
      ctx.addIssue({ code: 'custom', path: ['THUMB_SIGNING_SECRET'], message: 'is required and must be at least 32 characters when NODE_ENV=production' });
    } else if (PLACEHOLDER.test(secret)) {
      ctx.addIssue({ code: 'custom', path: ['THUMB_SIGNING_SECRET'], message: 'is the placeholder from .env.example: set a random value (e.g. openssl rand -hex 32)' });
    }
    if (placeholderPassword(env.DATABASE_URL)) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_URL'], message: 'has the placeholder password from .env.example: set POSTGRES_PASSWORD to a real one' });
    }
  });

export interface ImagesConfig {
  readonly nodeEnv: string;
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly database: DatabaseTarget;
  readonly storageDir: string;
  readonly publicBaseUrl: string;
  readonly thumbSigningSecret: string;
  readonly timeZone: string;
  readonly recycleRetentionDays: number;
  readonly logLevel: string;
  readonly shutdownTimeoutMs: number;
  readonly maxUploadBytes: number;
}

/** Parses the environment once; the only place in the service that reads env variables. */
export function loadConfig(env: Record<string, string | undefined>): ImagesConfig {
  // Empty strings count as unset, as they do in most .env tooling.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
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
    publicBaseUrl: value.PUBLIC_BASE_URL,
    thumbSigningSecret: value.THUMB_SIGNING_SECRET ?? DEV_THUMB_SECRET,
    timeZone: value.TIME_ZONE,
    recycleRetentionDays: value.RECYCLE_RETENTION_DAYS,
    logLevel: value.LOG_LEVEL,
    shutdownTimeoutMs: value.SHUTDOWN_TIMEOUT_MS,
    maxUploadBytes: value.MAX_UPLOAD_BYTES,
  });
}
