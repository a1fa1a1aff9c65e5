import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { AliasInputError, createAliasRepository } from '../catalog/search-aliases';

export const ALIAS_HELP = `Search aliases (what else people type for a term: screenshot ↔ 截图, 谷歌 ↔ Google; searched both ways)
  aliases:list [<text>]                           every group, or the groups holding <text> as term or alias
  aliases:add <term> <alias> [<alias> ...]        add aliases to a term (creates the group)
  aliases:remove <term> [<alias> ...]             remove these aliases, or the whole group when none is given
      Changes reach every replica's search on its next request (the catalog revision moves).`;

interface AliasCommandContext {
  db: Knex;
  out(line: string): void;
  err(line: string): void;
}

/** Runs one `aliases:*` command; returns the exit status (2 for a usage error, as the other commands). */
export async function runAliasCommand(command: string, args: string[], ctx: AliasCommandContext): Promise<number> {
  const aliases = createAliasRepository(ctx.db);
  try {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    const [term, ...rest] = positionals;
    switch (command) {
      case 'aliases:list': {
        const groups = await aliases.list(term);
        for (const group of groups) ctx.out(`${group.term}\t${group.aliases.join(', ')}`);
        if (groups.length === 0) ctx.out(term === undefined ? 'no aliases' : `no alias group holds "${term}"`);
        return 0;
      }
      case 'aliases:add': {
        if (term === undefined || rest.length === 0) throw new AliasInputError('usage: aliases:add <term> <alias> [<alias> ...]');
        const added = await aliases.add(term, rest);
        ctx.out(`${added} alias${added === 1 ? '' : 'es'} added to "${term}" (${rest.length - added} already there)`);
        return 0;
      }
      case 'aliases:remove': {
        if (term === undefined) throw new AliasInputError('usage: aliases:remove <term> [<alias> ...]');
        const removed = await aliases.remove(term, rest);
        if (removed === 0) {
          ctx.err(`error: no such alias of "${term}"`);
          return 1;
        }
        ctx.out(`${removed} alias${removed === 1 ? '' : 'es'} removed from "${term}"`);
        return 0;
      }
      default:
        throw new AliasInputError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof AliasInputError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      ctx.err(`error: ${(error as Error).message}`);
      ctx.err('run with --help for usage');
      return 2;
    }
    throw error;
  }
}
