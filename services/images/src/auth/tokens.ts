import { createHash, randomBytes } from 'node:crypto';

/** A new API token: 256 random bits, URL-safe. Shown once; only its digest is stored. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
