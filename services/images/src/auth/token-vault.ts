import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * The account token is shown in the account area, so besides its digest (for lookup) it is kept
 * sealed: AES-256-GCM under TOKEN_ENCRYPTION_KEY, as `v1.<iv>.<tag>.<ciphertext>` (base64url). A
 * database dump alone does not reveal a token; a changed key makes the sealed tokens unreadable (the
 * account area then offers a reset), never wrong.
 */
export function createTokenVault(key: Buffer) {
  if (key.length !== 32) throw new Error('the token encryption key must be 32 bytes');
  return {
    seal(token: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },

    /** The token, or null when it cannot be opened (another key, or damaged). */
    open(sealed: string): string | null {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || ciphertext === undefined) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

export type TokenVault = ReturnType<typeof createTokenVault>;
