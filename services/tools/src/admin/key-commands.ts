import { parseArgs } from 'node:util';
import { KEY_CACHE_TTL_MS } from '../auth/api-key-cache';
import { createApiKeysRepository, type ApiKeyRow } from '../auth/api-keys-repository';
import { createApiKey } from '../auth/api-keys';
import { CommandError, UsageError, type AdminContext } from './command-context';

export const isKeyCommand = (command: string | undefined) => command?.startsWith('key:') === true;

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

/** key:* commands (create, disable, enable, limit, list); returns the exit status. */
export async function runKeyCommand(command: string, rest: string[], ctx: AdminContext): Promise<number> {
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
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
