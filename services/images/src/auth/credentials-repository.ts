import type { Knex } from 'knex';
import { namedQuery } from '../db/named-query';
import { toUser, userColumns, type UserRow } from '../users/users-repository';

export type CredentialKind = 'account' | 'named' | 'session';

export interface CredentialRow {
  id: number;
  userId: number;
  kind: CredentialKind;
  name: string | null;
  tokenHash: string;
  sealedToken: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
}

function toCredential(row: Record<string, unknown>): CredentialRow {
  return {
    id: Number(row.credential_id ?? row.id),
    userId: Number(row.user_id),
    kind: row.kind as CredentialKind,
    name: (row.credential_name as string | null | undefined) ?? (row.kind === 'named' ? (row.name as string) : null),
    tokenHash: String(row.token_hash ?? ''),
    sealedToken: (row.token_ciphertext as string | null) ?? null,
    createdAt: (row.credential_created_at ?? row.created_at) as Date,
    lastUsedAt: (row.last_used_at as Date | null) ?? null,
    expiresAt: (row.expires_at as Date | null) ?? null,
  };
}

/**
 * Locks the user's row until the transaction ends, so one user's token changes run one after another.
 * NO KEY UPDATE: a sign-in's new session (its foreign key's share lock) is not held up by it.
 */
async function lockUser(trx: Knex.Transaction, userId: number): Promise<void> {
  await trx('users').where({ id: userId }).forNoKeyUpdate().select('id');
}

/** The credentials (account token, named tokens, sessions) users present in X-API-Token. */
export function createCredentialsRepository(db: Knex, options: { namedStatements: boolean } = { namedStatements: true }) {
  const liveCredential = namedQuery(
    db,
    'credential_lookup',
    `SELECT ${userColumns.join(', ')}, c.id AS credential_id, c.user_id, c.kind, c.name AS credential_name, c.token_ciphertext,
            c.created_at AS credential_created_at, c.last_used_at, c.expires_at
     FROM credentials AS c JOIN users AS u ON u.id = c.user_id JOIN groups AS g ON g.id = u.group_id
     WHERE c.token_hash = :tokenHash AND credential_live(c.id, c.user_id, :now::timestamptz)
     LIMIT 1`,
    ({ tokenHash, now }: { tokenHash: string; now: Date }) => ({ tokenHash, now }),
    { named: options.namedStatements },
  );

  return {
    /**
     * The live credential with this digest and its user: not expired, the user not disabled. Asked on
     * every request (a named statement) but the list and bin pages answered on a recalled principal,
     * whose statements check the credential themselves (auth/principal-for.ts), so a reset, revocation
     * or disabling stops a credential on every replica at once. `credential_live`
     * (migrations/20261126010000_credential_live) is the one definition of a live credential.
     */
    async findLive(tokenHash: string, now: Date): Promise<{ credential: CredentialRow; user: UserRow } | null> {
      const [row] = await liveCredential({ tokenHash, now });
      return row ? { credential: toCredential(row), user: toUser(row) } : null;
    },

    async touch(id: number, now: Date): Promise<void> {
      await db('credentials').where({ id }).update({ last_used_at: now });
    },

    async findAccountToken(userId: number): Promise<CredentialRow | null> {
      const row = await db('credentials').where({ user_id: userId, kind: 'account' }).first();
      return row ? toCredential(row) : null;
    },

    /**
     * Replaces the user's account token in one transaction: the old one stops at once. Resets of one
     * user wait for each other (the user's row is locked first), so each finds the token the one
     * before it made and none meets another's half-made row.
     */
    async replaceAccountToken(userId: number, token: { hash: string; seal(userId: number): string }): Promise<CredentialRow> {
      return db.transaction(async (trx) => {
        await lockUser(trx, userId);
        await trx('credentials').where({ user_id: userId, kind: 'account' }).delete();
        const [row] = await trx('credentials')
          .insert({ user_id: userId, kind: 'account', token_hash: token.hash, token_ciphertext: token.seal(userId) })
          .returning('*');
        return toCredential(row);
      });
    },

    async listNamed(userId: number): Promise<CredentialRow[]> {
      const rows = await db('credentials').where({ user_id: userId, kind: 'named' }).orderBy('id');
      return rows.map(toCredential);
    },

    /**
     * A new named token, unless the user already holds `cap`: then null. The count is taken in the
     * insert, with the user's row locked, so concurrent calls cannot pass the cap together.
     */
    async createNamed(userId: number, name: string, tokenHash: string, cap: number): Promise<CredentialRow | null> {
      return db.transaction(async (trx) => {
        await lockUser(trx, userId);
        const { rows } = (await trx.raw(
          `INSERT INTO credentials (user_id, kind, name, token_hash)
           SELECT :userId, 'named', :name, :tokenHash
           WHERE (SELECT count(*) FROM credentials WHERE user_id = :userId AND kind = 'named') < :cap
           RETURNING *`,
          { userId, name, tokenHash, cap },
        )) as { rows: Record<string, unknown>[] };
        return rows[0] ? toCredential(rows[0]) : null;
      });
    },

    /** Revokes one of the user's named tokens; false when it is not theirs (or not a named token). */
    async deleteNamed(userId: number, id: number): Promise<boolean> {
      return (await db('credentials').where({ id, user_id: userId, kind: 'named' }).delete()) > 0;
    },

    async createSession(userId: number, tokenHash: string, expiresAt: Date): Promise<CredentialRow> {
      const [row] = await db('credentials').insert({ user_id: userId, kind: 'session', token_hash: tokenHash, expires_at: expiresAt }).returning('*');
      return toCredential(row);
    },

    async deleteSession(id: number): Promise<void> {
      await db('credentials').where({ id, kind: 'session' }).delete();
    },

    async deleteExpiredSessions(now: Date): Promise<number> {
      return db('credentials').where('kind', 'session').andWhere('expires_at', '<=', now).delete();
    },
  };
}

export type CredentialsRepository = ReturnType<typeof createCredentialsRepository>;
