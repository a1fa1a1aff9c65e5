import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { KEY_CACHE_TTL_MS } from '../auth/api-key-cache';
import type { KeyVersion } from '../auth/key-version';
import { createApiKeysRepository, type ApiKeyRow } from '../auth/api-keys-repository';
import { createApiKey } from '../auth/api-keys';
import { createCatalogRepository } from '../catalog/catalog-repository';
import { detectFormat, importCatalog, ImportFormatError, parseCategoryPatch, type ImportFormat, type RejectedRow } from '../catalog/importer';
import { editCategory } from '../catalog/categories-service';
import { adsConfigSchema, DISABLED_ADS_CONFIG } from '../ads/ads-config';
import { createSettingsRepository } from '../ads/settings-repository';
import { ADS_SETTING_KEY } from '../ads/ads-service';
import type { RequestLimiter } from '../ratelimit/request-limiter';
import { ensureDemoData } from '../demo';
import { EDITOR_HELP, runEditorCommand } from './editor-commands';
import { ICON_HELP, isOutboundCommand, LINK_HELP, runOutboundCommand, type OutboundCommandContext } from './outbound-commands';
import { ALIAS_HELP, runAliasCommand } from './alias-commands';

export const ADMIN_HELP = `Tool directory admin

Usage: npm run admin -w services/tools -- <command> [options]
       node dist/src/admin/cli.js <command> [options]      (in the container)

Reads the same environment as the service (DATABASE_URL, REDIS_URL, DEFAULT_RATE_LIMIT_PER_HOUR, ...).

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
  import <file.json|file.csv> [--format json|csv] import categories and tools, idempotent by slug;
                                                  reports created/updated/rejected rows (exit 1 if any row was rejected)
      JSON: {"categories":[{slug,name,description,icon,sort_order}], "tools":[{slug,name,description,url,icon,category,tags,is_featured}]}
      CSV header: slug,name,description,url,icon,category,tags,is_featured   (tags separated by "|", is_featured true/false/1/0)

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

export class UsageError extends Error {}
export class CommandError extends Error {}

export interface AdminContext extends Omit<OutboundCommandContext, 'db' | 'out' | 'err'> {
  db: Knex;
  /** Present when REDIS_URL is configured: lets key:list show the current hour's usage. */
  limiter?: RequestLimiter;
  defaultRateLimitPerHour: number;
  /**
   * The version that replicas check their cached keys against (see auth/key-version.ts); moved after
   * every change to a key. Absent without Redis on a Postgres database: replicas see the change when
   * their cached entry expires.
   */
  keyVersion?: KeyVersion;
  /** What the operator piped in (an editor's password with --password-stdin). */
  input?: string;
  out(line: string): void;
  err(line: string): void;
}

/** Tells every replica that a key changed, so none trusts its cached copy any longer. */
async function announceKeyChange(ctx: AdminContext): Promise<number> {
  const later = `replicas that cached the key see the change within ${KEY_CACHE_TTL_MS / 1000} s`;
  if (!ctx.keyVersion) {
    ctx.err(`warning: REDIS_URL is not set, so running replicas could not be told at once; ${later}`);
    return 0;
  }
  try {
    await ctx.keyVersion.changed();
    return 0;
  } catch (error) {
    ctx.err(`error: the change is saved, but running replicas could not be told at once (Redis: ${(error as Error).message}); ${later}, or run the command again`);
    return 1;
  }
}

function parsePerHour(raw: string): number {
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw new UsageError(`limit must be a positive integer, got "${raw}"`);
  return Number(raw);
}

async function findKey(ctx: AdminContext, ref: string | undefined): Promise<ApiKeyRow> {
  if (!ref) throw new UsageError('missing key name or id');
  const repository = createApiKeysRepository(ctx.db);
  const byName = await repository.findByName(ref);
  if (byName) return byName;
  if (/^\d{1,9}$/.test(ref)) {
    const byId = (await repository.list()).find((key) => key.id === Number(ref));
    if (byId) return byId;
  }
  throw new CommandError(`no API key named or numbered "${ref}"`);
}

function describeRejected(rows: RejectedRow[], what: string, ctx: AdminContext) {
  for (const row of rows) ctx.out(`  rejected ${what} ${row.row}${row.slug ? ` (${row.slug})` : ''}: ${row.reason}`);
}

function readFile(path: string | undefined): string {
  if (!path) throw new UsageError('missing file path');
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (error) {
    throw new CommandError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const categoryOptions = {
  slug: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  icon: { type: 'string' },
  'sort-order': { type: 'string' },
  'name-en': { type: 'string' },
  'description-en': { type: 'string' },
} as const;

function sortOrder(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,9}$/.test(raw)) throw new UsageError(`--sort-order must be an integer, got "${raw}"`);
  return Number(raw);
}

/** Runs one admin command; returns the exit status. */
export async function runAdminCommand(argv: string[], ctx: AdminContext): Promise<number> {
  const [command, ...rest] = argv;
  if (command?.startsWith('editor:')) return runEditorCommand(command, rest, ctx);
  if (command?.startsWith('aliases:')) return runAliasCommand(command, rest, ctx);
  try {
    switch (command) {
      case 'key:create': {
        const { values } = parseArgs({ args: rest, options: { name: { type: 'string' }, limit: { type: 'string' } } });
        const name = values.name?.trim();
        if (!name) throw new UsageError('--name is required');
        if (name.length > 100) throw new UsageError('--name must be at most 100 characters');
        const repository = createApiKeysRepository(ctx.db);
        if (await repository.findByName(name)) throw new CommandError(`an API key named "${name}" already exists`);
        const limit = values.limit === undefined ? null : parsePerHour(values.limit);
        const { apiKey, record } = await createApiKey(repository, { name, rateLimitPerHour: limit });
        ctx.out(`created API key #${record.id} "${record.name}" (limit ${limit ?? `${ctx.defaultRateLimitPerHour} (default)`}/hour)`);
        ctx.out(`key: ${apiKey}`);
        ctx.out('store it now: only its SHA-256 digest is kept, it cannot be shown again');
        return 0;
      }
      case 'key:disable':
      case 'key:enable': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        const key = await findKey(ctx, positionals[0]);
        const enabled = command === 'key:enable';
        await createApiKeysRepository(ctx.db).update(key.id, { enabled });
        ctx.out(`API key #${key.id} "${key.name}" ${enabled ? 'enabled' : 'disabled'}`);
        return announceKeyChange(ctx);
      }
      case 'key:limit': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        const key = await findKey(ctx, positionals[0]);
        const raw = positionals[1];
        if (!raw) throw new UsageError('missing limit (a positive integer or "default")');
        const limit = raw === 'default' ? null : parsePerHour(raw);
        await createApiKeysRepository(ctx.db).update(key.id, { rateLimitPerHour: limit });
        ctx.out(`API key #${key.id} "${key.name}" limit: ${limit ?? `${ctx.defaultRateLimitPerHour} (default)`}/hour`);
        return announceKeyChange(ctx);
      }
      case 'key:list': {
        parseArgs({ args: rest, options: {} });
        const keys = await createApiKeysRepository(ctx.db).list();
        ctx.out(['id', 'name', 'prefix', 'status', 'limit/h', 'used this hour', 'window resets in'].join('\t'));
        for (const key of keys) {
          let used = 'n/a (no REDIS_URL)';
          let resets = '-';
          if (ctx.limiter) {
            const usage = await ctx.limiter.usage(`key:${key.id}`).catch(() => undefined);
            if (usage === undefined) used = 'n/a (Redis unavailable)';
            else if (usage === null) used = '0';
            else {
              used = String(usage.consumed);
              resets = `${Math.ceil(usage.msBeforeReset / 1000)}s`;
            }
          }
          const limit = key.rateLimitPerHour === null ? `${ctx.defaultRateLimitPerHour} (default)` : String(key.rateLimitPerHour);
          ctx.out([key.id, key.name, `${key.keyPrefix}…`, key.enabled ? 'enabled' : 'disabled', limit, used, resets].join('\t'));
        }
        return 0;
      }
      case 'category:set': {
        const { values } = parseArgs({ args: rest, options: categoryOptions });
        const catalog = createCatalogRepository(ctx.db);
        const english = { name_en: values['name-en'], description_en: values['description-en'] };
        const document = JSON.stringify({
          categories: [
            { slug: values.slug, name: values.name, description: values.description, icon: values.icon, sort_order: sortOrder(values['sort-order']), ...english },
          ],
          tools: [],
        });
        const report = await importCatalog(catalog, document, 'json');
        const rejected = report.categories.rejected[0];
        if (rejected) throw new UsageError(rejected.reason);
        const outcome = report.categories.created ? 'created' : report.categories.updated ? 'updated' : 'unchanged';
        ctx.out(`category "${values.slug}" ${outcome}`);
        return 0;
      }
      case 'category:edit': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: categoryOptions });
        const slug = positionals[0] ?? values.slug;
        if (!slug) throw new UsageError('missing category slug');
        const checked = parseCategoryPatch({
          name: values.name,
          description: values.description,
          icon: values.icon,
          sort_order: sortOrder(values['sort-order']),
          name_en: values['name-en'],
          description_en: values['description-en'],
        });
        if ('reason' in checked) throw new UsageError(checked.reason);
        if (Object.keys(checked.patch).length === 0) {
          throw new UsageError('nothing to change: give --name, --description, --icon, --sort-order, --name-en or --description-en');
        }
        const changed = await editCategory(createCatalogRepository(ctx.db), slug, checked.patch);
        if (!changed) throw new CommandError(`no category with slug "${slug}"`);
        ctx.out(`category "${slug}" updated`);
        return 0;
      }
      case 'category:list': {
        parseArgs({ args: rest, options: {} });
        const categories = await createCatalogRepository(ctx.db).listCategories();
        ctx.out(['id', 'slug', 'name', 'sort_order', 'tools'].join('\t'));
        for (const c of categories) ctx.out([c.id, c.slug, c.name, c.sort_order, c.tool_count].join('\t'));
        return 0;
      }
      case 'import': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { format: { type: 'string' } } });
        const file = positionals[0];
        const text = readFile(file);
        const format = (values.format ?? detectFormat(file!)) as ImportFormat | undefined;
        if (format !== 'json' && format !== 'csv') throw new UsageError('cannot tell the format: use a .json or .csv file, or --format json|csv');
        const report = await importCatalog(createCatalogRepository(ctx.db), text, format);
        const { categories, tools } = report;
        ctx.out(`categories: ${categories.created} created, ${categories.updated} updated, ${categories.unchanged} unchanged, ${categories.rejected.length} rejected`);
        describeRejected(categories.rejected, 'category', ctx);
        ctx.out(`tools: ${tools.created} created, ${tools.updated} updated, ${tools.unchanged} unchanged, ${tools.rejected.length} rejected`);
        describeRejected(tools.rejected, format === 'csv' ? 'line' : 'tool', ctx);
        return categories.rejected.length + tools.rejected.length > 0 ? 1 : 0;
      }
      case 'ads:set': {
        const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
        const text = readFile(positionals[0]);
        let document: unknown;
        try {
          document = JSON.parse(text);
        } catch (error) {
          throw new CommandError(`not valid JSON: ${(error as Error).message}`);
        }
        const parsed = adsConfigSchema.safeParse(document);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new CommandError(`invalid ads config at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
        }
        await createSettingsRepository(ctx.db).put(ADS_SETTING_KEY, parsed.data);
        ctx.out('ads config stored');
        return 0;
      }
      case 'ads:show': {
        const stored = await createSettingsRepository(ctx.db).get(ADS_SETTING_KEY);
        ctx.out(JSON.stringify(stored ?? DISABLED_ADS_CONFIG, null, 2));
        if (stored === undefined) ctx.out('(not set: everything disabled)');
        return 0;
      }
      case 'demo:seed': {
        const result = await ensureDemoData(ctx.db);
        ctx.out(`imported ${result.importedTools} tools`);
        ctx.out(result.apiKey ? `demo API key: ${result.apiKey}` : 'demo API key already exists (not shown again)');
        return 0;
      }
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
