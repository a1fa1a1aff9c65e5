import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords (image-host users, directory editors) are hashed with scrypt (memory-hard, in node:crypto) at one of the costs OWASP's password
 * storage cheat sheet rates equal to its first recommendation (N=2^17, r=8, p=1): N=2^15, r=8, p=3,
 * the one that holds 32 MiB rather than 128 MiB per hash, since sign-ins share the thread pool with
 * uploads. Stored as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url), so a hash made at an older
 * cost still verifies, and is replaced at the user's next sign-in (needsRehash).
 */
const LOG2_N = 15;
const R = 8;
const P = 3;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, { N: 2 ** LOG2_N, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', LOG2_N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** True when `password` matches `stored`; false for a wrong password or a malformed hash alike. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: 2 ** Number(logN), r: Number(r), p: Number(p), maxmem: MAX_MEMORY });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored hash was made at another cost than today's (it is replaced once its password is known). */
export function needsRehash(stored: string): boolean {
  const [scheme, logN, r, p] = stored.split('$');
  return scheme !== 'scrypt' || Number(logN) !== LOG2_N || Number(r) !== R || Number(p) !== P;
}

/** A password the rules accept: 8 to 128 characters (any characters). */
export function isAcceptablePassword(password: string): boolean {
  const length = [...password].length;
  return length >= PASSWORD_MIN_LENGTH && length <= PASSWORD_MAX_LENGTH;
}
