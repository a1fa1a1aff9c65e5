import { randomBytes } from 'node:crypto';
import { hashPassword, isAcceptablePassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@platform/kit';
import { isValidEditorName } from './editor-name';
import type { EditorsRepository } from './editors-repository';

/** A refusal the CLI prints as it is. */
export class EditorAccountError extends Error {}

/** A password for an operator to hand on: 128 random bits, URL-safe (22 characters). */
export function generatePassword(): string {
  return randomBytes(16).toString('base64url');
}

function checkPassword(password: string): void {
  if (!isAcceptablePassword(password)) {
    throw new EditorAccountError(`the password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
}

/** The operator's side of editor accounts (the admin CLI's editor:* commands). */
export function createEditorAccounts(editors: EditorsRepository) {
  async function existing(name: string) {
    const editor = await editors.findByName(name);
    if (!editor) throw new EditorAccountError(`no editor named "${name}"`);
    return editor;
  }

  return {
    async add(name: string, password: string): Promise<number> {
      if (!isValidEditorName(name)) throw new EditorAccountError('the name must be 1-64 letters, digits or _.@-');
      checkPassword(password);
      const id = await editors.create(name, await hashPassword(password));
      if (id === null) throw new EditorAccountError(`an editor named "${name.trim()}" already exists`);
      return id;
    },

    list: () => editors.list(),

    async setDisabled(name: string, disabled: boolean) {
      const editor = await existing(name);
      await editors.setDisabled(editor.id, disabled);
      return editor;
    },

    /** Also ends the editor's sessions: a password reset is often a lost or shared one. */
    async setPassword(name: string, password: string) {
      const editor = await existing(name);
      checkPassword(password);
      await editors.setPasswordHash(editor.id, await hashPassword(password), true);
      return editor;
    },
  };
}
