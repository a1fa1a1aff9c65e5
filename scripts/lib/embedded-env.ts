import path from 'node:path';
import { z } from 'zod';

/** The repository root: `DATA_DIR` is relative to it, whatever folder npm was run in. */
export const ROOT = path.resolve(__dirname, '..', '..');

const portNumber = z
  .string()
  .trim()
  .regex(/^\d+$/, 'must be a port number (0-65535)')
  .transform(Number)
  .pipe(z.number().max(65535, 'must be a port number (0-65535)'));

/** The front door's own settings; each service validates the rest with its own schema. */
const schema = z.object({
  PORT: portNumber.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('data'),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'must be one of fatal, error, warn, info, debug, trace, silent' }).default('info'),
  SHUTDOWN_TIMEOUT_MS: z.string().trim().regex(/^\d+$/, 'must be a non-negative integer').transform(Number).default(10000),
});

export interface EmbeddedEnvironment {
  port: number;
  host: string;
  dataDir: string;
  /** Where clients reach the platform; image URLs are built from it. */
  baseUrl: string;
  logLevel: string;
  shutdownTimeoutMs: number;
  /** Each service's environment, as its container would have it. */
  images: NodeJS.ProcessEnv;
  tools: NodeJS.ProcessEnv;
}

/**
 * The environment `npm start` gives each service, from its own: one function for `npm start` and
 * `npm run admin`, so that the admin CLI opens exactly the data the platform uses. Throws one line
 * naming a bad variable.
 */
export function embeddedEnvironment(env: NodeJS.ProcessEnv): EmbeddedEnvironment {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join('.')} ${issue.message}`);
  }
  const settings = parsed.data;
  const dataDir = path.resolve(ROOT, settings.DATA_DIR);
  const baseUrl = (settings.PUBLIC_BASE_URL ?? `http://localhost:${settings.PORT}`).replace(/\/+$/, '');
  return {
    port: settings.PORT,
    host: settings.HOST,
    dataDir,
    baseUrl,
    logLevel: settings.LOG_LEVEL,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
    images: {
      ...env,
      DATABASE_URL: env.IMAGES_DATABASE_URL || `pglite:${path.join(dataDir, 'images-db')}`,
      STORAGE_DIR: env.IMAGES_STORAGE_DIR || path.join(dataDir, 'images'),
      PUBLIC_BASE_URL: baseUrl,
      INIT_CWD: '',
    },
    tools: {
      ...env,
      DATABASE_URL: env.TOOLS_DATABASE_URL || `pglite:${path.join(dataDir, 'tools-db')}`,
      REDIS_URL: env.TOOLS_REDIS_URL ?? '',
      // The website's canonical URLs: the platform's address when it is an origin (the site lives at /);
      // otherwise each page takes the address it was asked on.
      PUBLIC_BASE_URL: new URL(baseUrl).pathname === '/' ? baseUrl : '',
      INIT_CWD: '',
    },
  };
}
