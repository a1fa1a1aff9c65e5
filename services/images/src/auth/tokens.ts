import { hash, randomBytes } from 'node:crypto';

/** A new API token: 256 random bits, URL-safe. Shown once; only its digest is stored. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  // The one-shot hash: a third of createHash's cost on a token this short (it runs on every request).
  return hash('sha256', token, 'hex');
}
