import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The image service's two keys for an embedded install (`npm start`): the one that signs thumbnail and
 * deletion links (THUMB_SIGNING_SECRET) and the one that seals the account tokens the account area
 * shows (TOKEN_ENCRYPTION_KEY). On PGlite under development the service falls back to built-in
 * development values, which are public (they are in its source): with them, anyone who reaches the
 * platform could sign a deletion link for any image. So each install makes its own on its first start, random, and
 * keeps them in DATA_DIR/secrets.json (readable by its owner only). A variable set in the environment
 * wins over the file.
 */
export interface InstallSecrets {
  THUMB_SIGNING_SECRET: string;
  TOKEN_ENCRYPTION_KEY: string;
}

export const SECRETS_FILE = 'secrets.json';

function isInstallSecrets(value: unknown): value is InstallSecrets {
  const secrets = value as Partial<InstallSecrets> | null;
  return (
    typeof secrets === 'object' &&
    secrets !== null &&
    typeof secrets.THUMB_SIGNING_SECRET === 'string' &&
    secrets.THUMB_SIGNING_SECRET.length >= 32 &&
    typeof secrets.TOKEN_ENCRYPTION_KEY === 'string' &&
    /^[0-9a-f]{64}$/.test(secrets.TOKEN_ENCRYPTION_KEY)
  );
}

/** The install's keys, or null when it has none yet. A damaged file stops the start with what to do. */
function read(file: string): InstallSecrets | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!isInstallSecrets(parsed)) {
    throw new Error(`${file} is damaged (it must hold THUMB_SIGNING_SECRET and TOKEN_ENCRYPTION_KEY); restore it, or remove it to make new keys (links handed out before then stop working)`);
  }
  return parsed;
}

/** Only the keys the environment does not set: those it sets are the service's to use. */
function notSetIn(env: NodeJS.ProcessEnv, secrets: InstallSecrets): Partial<InstallSecrets> {
  const missing: Partial<InstallSecrets> = {};
  if (!env.THUMB_SIGNING_SECRET) missing.THUMB_SIGNING_SECRET = secrets.THUMB_SIGNING_SECRET;
  if (!env.TOKEN_ENCRYPTION_KEY) missing.TOKEN_ENCRYPTION_KEY = secrets.TOKEN_ENCRYPTION_KEY;
  return missing;
}

function makeSecrets(): InstallSecrets {
  return { THUMB_SIGNING_SECRET: randomBytes(32).toString('base64url'), TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
}

/**
 * For checking the environment before DATA_DIR is touched: the keys the install will supply where the
 * environment sets none, as random values of the same form (the service refuses to run on a Postgres
 * server without keys, and `npm start` always gives it the install's).
 */
export function standInSecrets(env: NodeJS.ProcessEnv): Partial<InstallSecrets> {
  return notSetIn(env, makeSecrets());
}

/**
 * For `npm start`, on an existing DATA_DIR: the install's keys, made and written on its first start
 * (`created`). Another process that made them first wins; its keys are read.
 */
export function ensureInstallSecrets(dataDir: string, env: NodeJS.ProcessEnv): { env: Partial<InstallSecrets>; created: boolean } {
  const file = path.join(dataDir, SECRETS_FILE);
  const existing = read(file);
  if (existing) return { env: notSetIn(env, existing), created: false };
  const made = makeSecrets();
  try {
    writeFileSync(file, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { env: notSetIn(env, read(file)!), created: false };
  }
  return { env: notSetIn(env, made), created: true };
}

/** For `npm run admin`, which creates nothing: the install's keys when it has them. */
export function readInstallSecrets(dataDir: string, env: NodeJS.ProcessEnv): Partial<InstallSecrets> {
  const existing = read(path.join(dataDir, SECRETS_FILE));
  return existing ? notSetIn(env, existing) : {};
}
