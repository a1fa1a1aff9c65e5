import type { Knex } from 'knex';
import { editorNameKey } from './editor-name';

export interface EditorRow {
  id: number;
  name: string;
  disabled: boolean;
  createdAt: Date;
  lastSignInAt: Date | null;
}

function toEditor(row: Record<string, unknown>): EditorRow {
  return {
    id: Number(row.editor_id ?? row.id),
    name: String(row.name),
    disabled: row.disabled_at !== null && row.disabled_at !== undefined,
    createdAt: row.created_at as Date,
    lastSignInAt: (row.last_sign_in_at as Date | null) ?? null,
  };
}

const UNIQUE_VIOLATION = '23505';

/** Editor accounts and their sessions (tables from the editors migration). */
export function createEditorsRepository(db: Knex) {
  return {
    /** The new editor's id, or null when the name (as compared: editorNameKey) is taken. */
    async create(name: string, passwordHash: string): Promise<number | null> {
      try {
        const [row] = await db('editors').insert({ name: name.trim(), name_key: editorNameKey(name), password_hash: passwordHash }, ['id']);
        return Number(row.id);
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
        throw error;
      }
    },

    async findByName(name: string): Promise<EditorRow | undefined> {
      const row = await db('editors').where({ name_key: editorNameKey(name) }).first();
      return row ? toEditor(row) : undefined;
    },

    async findForSignIn(name: string): Promise<{ editor: EditorRow; passwordHash: string } | undefined> {
      const row = await db('editors').where({ name_key: editorNameKey(name) }).first();
      return row ? { editor: toEditor(row), passwordHash: String(row.password_hash) } : undefined;
    },

    async list(): Promise<EditorRow[]> {
      return (await db('editors').orderBy('id')).map(toEditor);
    },

    /** Disabling also ends every session of the editor (in one transaction): the change takes effect at once. */
    async setDisabled(id: number, disabled: boolean): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('editors').where({ id }).update({ disabled_at: disabled ? trx.fn.now() : null });
        if (disabled) await trx('editor_sessions').where({ editor_id: id }).delete();
      });
    },

    /** A new password ends the editor's sessions when `endSessions` (set by an operator), not on a rehash at sign-in. */
    async setPasswordHash(id: number, passwordHash: string, endSessions: boolean): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('editors').where({ id }).update({ password_hash: passwordHash });
        if (endSessions) await trx('editor_sessions').where({ editor_id: id }).delete();
      });
    },

    async createSession(editorId: number, tokenHash: string, expiresAt: Date): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('editor_sessions').insert({ editor_id: editorId, token_hash: tokenHash, expires_at: expiresAt });
        await trx('editors').where({ id: editorId }).update({ last_sign_in_at: trx.fn.now() });
      });
    },

    /** The session with this digest and its editor, while it has not expired and the editor is not disabled. */
    async findLiveSession(tokenHash: string, now: Date): Promise<{ sessionId: number; editor: EditorRow } | undefined> {
      const row = await db('editor_sessions as s')
        .join('editors as e', 'e.id', 's.editor_id')
        .where('s.token_hash', tokenHash)
        .andWhere('s.expires_at', '>', now)
        .whereNull('e.disabled_at')
        .select('s.id as session_id', 'e.id as editor_id', 'e.name', 'e.disabled_at', 'e.created_at', 'e.last_sign_in_at')
        .first();
      return row ? { sessionId: Number(row.session_id), editor: toEditor(row) } : undefined;
    },

    async deleteSession(sessionId: number): Promise<void> {
      await db('editor_sessions').where({ id: sessionId }).delete();
    },

    async deleteExpiredSessions(now: Date): Promise<number> {
      return db('editor_sessions').where('expires_at', '<=', now).delete();
    },
  };
}

export type EditorsRepository = ReturnType<typeof createEditorsRepository>;
