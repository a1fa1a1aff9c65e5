import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Knex } from 'knex';
import { createEditorAccounts, EditorAccountError, generatePassword } from '../editors/editor-accounts';
import { createEditorsRepository } from '../editors/editors-repository';

export const EDITOR_HELP = `Editors (the web admin at /admin/)
  editor:add <name> [--password-stdin]            create an editor; prints a generated password, or takes
                                                  the first line of stdin with --password-stdin
  editor:list                                     editors with status, creation and last sign-in
  editor:disable <name>                           refuse the editor's sign-in and end their sessions now
  editor:enable <name>                            let the editor sign in again
  editor:set-password <name> [--password-stdin]   a new password (generated and printed, or from stdin); ends their sessions`;

/** Commands that read a password from stdin: the CLI reads it first, so it also travels to a running service. */
export function readsStdin(argv: string[]): boolean {
  return argv[0]?.startsWith('editor:') === true && argv.includes('--password-stdin');
}

export interface EditorCommandContext {
  db: Knex;
  /** What the operator piped in, for --password-stdin. */
  input?: string;
  out(line: string): void;
  err(line: string): void;
}

class Usage extends Error {}

/** Runs one editor:* command; returns the exit status (0 done, 1 refused, 2 usage). */
export async function runEditorCommand(command: string, args: string[], ctx: EditorCommandContext): Promise<number> {
  const accounts = createEditorAccounts(createEditorsRepository(ctx.db));
  const named = (options: ParseArgsConfig['options'] = {}) => {
    const parsed = parseArgs({ args, allowPositionals: true, options });
    const name = parsed.positionals[0];
    if (!name || parsed.positionals.length > 1) throw new Usage(`${command} takes one editor name`);
    return { name, values: parsed.values as Record<string, unknown> };
  };
  /** The given password, or a generated one that is printed (the only time it is shown). */
  const password = (fromStdin: boolean): { password: string; generated: boolean } => {
    if (!fromStdin) return { password: generatePassword(), generated: true };
    const line = (ctx.input ?? '').split(/\r?\n/)[0] ?? '';
    if (line === '') throw new Usage('no password on stdin (pipe it in: echo "$PASSWORD" | … --password-stdin)');
    return { password: line, generated: false };
  };
  try {
    switch (command) {
      case 'editor:add': {
        const { name, values } = named({ 'password-stdin': { type: 'boolean' } });
        const chosen = password(values['password-stdin'] === true);
        const id = await accounts.add(name, chosen.password);
        ctx.out(`created editor #${id} "${name.trim()}"; they sign in at /admin/`);
        if (chosen.generated) ctx.out(`password: ${chosen.password}`);
        return 0;
      }
      case 'editor:list': {
        parseArgs({ args, options: {} });
        ctx.out(['id', 'name', 'status', 'created', 'last sign-in'].join('\t'));
        for (const editor of await accounts.list()) {
          const when = (date: Date | null) => (date ? new Date(date).toISOString() : '-');
          ctx.out([editor.id, editor.name, editor.disabled ? 'disabled' : 'enabled', when(editor.createdAt), when(editor.lastSignInAt)].join('\t'));
        }
        return 0;
      }
      case 'editor:disable':
      case 'editor:enable': {
        const { name } = named();
        const disabled = command === 'editor:disable';
        const editor = await accounts.setDisabled(name, disabled);
        ctx.out(`editor "${editor.name}" ${disabled ? 'disabled; their sessions ended' : 'enabled'}`);
        return 0;
      }
      case 'editor:set-password': {
        const { name, values } = named({ 'password-stdin': { type: 'boolean' } });
        const chosen = password(values['password-stdin'] === true);
        const editor = await accounts.setPassword(name, chosen.password);
        ctx.out(`password of editor "${editor.name}" set; their sessions ended`);
        if (chosen.generated) ctx.out(`password: ${chosen.password}`);
        return 0;
      }
      default:
        throw new Usage(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof Usage || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      ctx.err(`error: ${(error as Error).message}`);
      ctx.err('run with --help for usage');
      return 2;
    }
    if (error instanceof EditorAccountError) {
      ctx.err(`error: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
