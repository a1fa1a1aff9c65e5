import { describeSchema } from '@platform/kit';
import { ImportFormatError } from '../catalog/importer';
import { ensureDemoData } from '../demo';
import { isAdsCommand, runAdsCommand } from './ads-commands';
import { isCatalogCommand, runCatalogCommand } from './catalog-commands';
import { CommandError, UsageError, type AdminContext } from './command-context';
import { EDITOR_HELP, runEditorCommand } from './editor-commands';
import { isKeyCommand, runKeyCommand } from './key-commands';
import { ICON_HELP, isOutboundCommand, LINK_HELP, runOutboundCommand } from './outbound-commands';
import { ALIAS_HELP, runAliasCommand } from './alias-commands';

export { CommandError, UsageError, type AdminContext } from './command-context';

export const ADMIN_HELP = `Tool directory admin

Usage: npm run admin -w services/tools -- <command> [options]
       node dist/src/admin/cli.js <command> [options]      (in the container)

Reads the same environment as the service (DATABASE_URL, REDIS_URL, DEFAULT_RATE_LIMIT_PER_HOUR, ...).

Schema
  migrate                                         apply pending migrations (once per deploy, before replicas
                                                  started with DATABASE_MIGRATIONS=verify); every command does too

API keys
  key:create --name <name> [--limit <per-hour>]   create a key and print it (shown only this once)
  key:disable <name|id>                           reject the key with 403 from now on
  key:enable <name|id>                            accept the key again
  key:limit <name|id> <per-hour|default>          set the key's hourly limit ("default" = DEFAULT_RATE_LIMIT_PER_HOUR)
  key:list                                        keys with status, limit and use in the current hour (needs REDIS_URL)

Categories
  category:set --slug <slug> --name <name> [--description <text>] [--icon <icon>] [--sort-order <n>] [--name-en <text>] [--description-en <text>]
                                                  create a category, or replace it if the slug exists
  category:edit <slug> [--name ...] [--description ...] [--icon ...] [--sort-order <n>] [--name-en ...] [--description-en ...]
                                                  change some fields of an existing category
  category:list                                   list categories with tool counts

Tools
  import <file> [--format json|csv|html|onenav] [--dry-run]
                                                  import categories and tools, idempotent by slug; reports created/updated/
                                                  unchanged/rejected rows (exit 1 if any row was rejected); --dry-run writes nothing
      JSON: {"categories":[{slug,name,description,icon,sort_order,name_en,description_en}],
             "tools":[{slug,name,description,url,icon,category,tags,is_featured,sort_order,name_en,description_en}]}
      CSV header: slug,name,description,url,icon,category,tags,is_featured[,name_en,description_en]   (tags separated by "|")
        or the whole-directory CSV: record,slug,name,description,url,icon,category,tags,is_featured,sort_order,name_en,description_en
      HTML: a browser's bookmark export (folders → categories, two levels; deeper folders → one path tag)
      OneNav: its database file (data/onenav.db3); private links and categories are skipped
  export [--format json|csv|html] [--out <file>]  the whole directory (stdout by default); imports back to the same directory

${EDITOR_HELP}
${ALIAS_HELP}

Mini-program ads
  ads:set <file.json>                             store the ads config (validated; see openapi.yaml AdsConfig)
  ads:show                                        print the config served now

${ICON_HELP}

${LINK_HELP}

Demo
  demo:seed                                       import the sample dataset if there are no tools; create key "demo" if absent

Exit status: 0 success, 1 failure (message on stderr), 2 usage error.`;

/** Runs one admin command; returns the exit status. */
export async function runAdminCommand(argv: string[], ctx: AdminContext): Promise<number> {
  const [command, ...rest] = argv;
  if (command?.startsWith('editor:')) return runEditorCommand(command, rest, ctx);
  if (command?.startsWith('aliases:')) return runAliasCommand(command, rest, ctx);
  try {
    if (isKeyCommand(command)) return await runKeyCommand(command!, rest, ctx);
    if (isCatalogCommand(command)) return await runCatalogCommand(command!, rest, ctx);
    if (isAdsCommand(command)) return await runAdsCommand(command!, rest, ctx);
    switch (command) {
      case 'demo:seed': {
        const result = await ensureDemoData(ctx.db);
        ctx.out(`imported ${result.importedTools} tools`);
        ctx.out(result.apiKey ? `demo API key: ${result.apiKey}` : 'demo API key already exists (not shown again)');
        return 0;
      }
      case 'migrate':
        // Reached through a running embedded process, which applied the migrations when it started.
        ctx.out(await describeSchema(ctx.db));
        return 0;
      default:
        if (isOutboundCommand(command)) return await runOutboundCommand(command, rest, ctx);
        throw new UsageError(command ? `unknown command "${command}"` : 'missing command');
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      ctx.err(`error: ${(error as Error).message}`);
      ctx.err('run with --help for usage');
      return 2;
    }
    if (error instanceof CommandError || error instanceof ImportFormatError) {
      ctx.err(`error: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
