import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { generateToken, hashToken } from './tokens';

/** The row a sealed token belongs to: its user and the token's digest, which the row stores beside it. */
export interface SealedFor {
  userId: number;
  tokenHash: string;
}

/**
 * The account token is shown in the account area, so besides its digest (for lookup) it is kept
 * sealed: AES-256-GCM under TOKEN_ENCRYPTION_KEY, as `v2.<iv>.<tag>.<ciphertext>` (base64url), with
 * the user's id as additional authenticated data. A database dump alone does not reveal a token; a
 * changed key makes the sealed tokens unreadable (the account area then offers a reset), never wrong;
 * and a ciphertext copied to another user's row does not open there. `v1` seals (no user bound) still
 * open, but only where their token's digest is the row's own, which ties them to that row as well.
 */
export function createTokenVault(key: Buffer) {
  if (key.length !== 32) throw new Error('the token encryption key must be 32 bytes');
  const userData = (userId: number) => Buffer.from(`account-token:user:${userId}`);
  const vault = {
    seal(token: string, owner: Pick<SealedFor, 'userId'>): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(userData(owner.userId));
      const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return ['v2', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
    },

    /** The token, or null when it cannot be opened here (another key, another row, or damaged). */
    open(sealed: string, owner: SealedFor): string | null {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if ((version !== 'v1' && version !== 'v2') || !iv || !tag || ciphertext === undefined) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        if (version === 'v2') decipher.setAAD(userData(owner.userId));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        const token = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
        return hashToken(token) === owner.tokenHash ? token : null;
      } catch {
        return null;
      }
    },

    /** A new account token with its digest (for lookup) and its seal for the row of the user it goes to. */
    issue() {
      const token = generateToken();
      return { token, stored: { hash: hashToken(token), seal: (userId: number) => vault.seal(token, { userId }) } };
    },
  };
  return vault;
}

export type TokenVault = ReturnType<typeof createTokenVault>;
