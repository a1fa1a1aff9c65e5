import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import pino from 'pino';
import { createServices } from '../app';
import { createCategoriesRepository } from '../categories/categories-repository';
import { categoryNameSchema } from '../categories/category-name';
import type { ImagesConfig } from '../config';
import { createMediaProcessor } from '../media/media-processor';
import { createMetrics } from '../metrics/metrics';
import { createFileStorage } from '../storage/file-storage';
import { createUser, resetToken } from '../users/user-admin';
import { createUsersRepository } from '../users/users-repository';
import { formatByteSize, parseByteSize } from './byte-sizes';

export const ADMIN_HELP = `Image hosting admin

Usage: npm run admin -w services/images -- <command> [options]
   or: node dist/src/admin/cli.js <command> [options]

Users
  create-user <name> [--group <group>]      create a user (group "default" unless given); prints its token ONCE
  reset-token <name>                        replace the user's token; prints the new one ONCE
  set-group <name> <group>                  move a user to another membership group
  list-users                                users with group, used and quota bytes

Groups
  create-group <name> --max-file-size <size> --quota <size>
  edit-group <name> [--max-file-size <size>] [--quota <size>] [--rename <new-name>]
  list-groups
  Sizes are bytes or a number with a unit: 10MiB, 1GiB, 500KB. max-file-size may not exceed
  MAX_UPLOAD_BYTES (the multipart cap, kept equal to nginx client_max_body_size).

Categories
  create-category <user> <name>
  list-categories <user>

Recycle bin
  purge-bin [--user <name>] [--older-than-days <n>]
                                            permanently delete bin items (all, or one user's, or older ones)
                                            and free their bytes

Configuration comes from the same environment variables as the service (DATABASE_URL, STORAGE_DIR, ...).
With an embedded database (pglite:<dir>), stop the service first: PGlite allows one process at a time.

Exit status: 0 success, 1 failure (message on stderr), 2 usage error.`;

export interface AdminContext {
  db: Knex;
  config: ImagesConfig;
  out(line: string): void;
  err(line: string): void;
}

export class UsageError extends Error {}

function positionals(values: string[], count: number, usage: string): string[] {
  if (values.length !== count) throw new UsageError(`usage: ${usage}`);
  return values;
}

/** Runs one admin command; returns the exit status. Errors are printed as one `error:` line on stderr. */
export async function runAdminCommand(argv: string[], ctx: AdminContext): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command) throw new UsageError('missing command');
    await dispatch(command, rest, ctx);
    return 0;
  } catch (error) {
    ctx.err(`error: ${(error as Error).message}`);
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      ctx.err('run with --help for usage');
      return 2;
    }
    return 1;
  }
}

async function dispatch(command: string, args: string[], ctx: AdminContext): Promise<void> {
  const users = createUsersRepository(ctx.db);
  const parse = (options: Record<string, { type: 'string' }>) => parseArgs({ args, options, allowPositionals: true, strict: true });
  const requireUser = async (name: string) => {
    const user = await users.findByName(name);
    if (!user) throw new Error(`user ${name} does not exist`);
    return user;
  };
  const requireGroup = async (name: string) => {
    const group = await users.findGroupByName(name);
    if (!group) throw new Error(`group ${name} does not exist`);
    return group;
  };
  const checkMaxFileSize = (bytes: number) => {
    if (bytes < 1) throw new Error('max-file-size must be at least 1 byte');
    if (bytes > ctx.config.maxUploadBytes) {
      throw new Error(
        `max-file-size ${formatByteSize(bytes)} is above MAX_UPLOAD_BYTES (${formatByteSize(ctx.config.maxUploadBytes)}): raise MAX_UPLOAD_BYTES and nginx client_max_body_size first`,
      );
    }
  };

  switch (command) {
    case 'create-user': {
      const { positionals: names, values } = parse({ group: { type: 'string' } });
      const [name] = positionals(names, 1, 'create-user <name> [--group <group>]');
      const created = await createUser(ctx.db, { name: name!, groupName: values.group });
      ctx.out(`created user ${name!.trim()} (id ${created.id}) in group ${values.group ?? 'default'}`);
      ctx.out(`token (shown once, store it now): ${created.token}`);
      return;
    }
    case 'reset-token': {
      const [name] = positionals(parse({}).positionals, 1, 'reset-token <name>');
      const token = await resetToken(ctx.db, name!);
      ctx.out(`new token for ${name} (shown once; the old one no longer works): ${token}`);
      return;
    }
    case 'set-group': {
      const [name, groupName] = positionals(parse({}).positionals, 2, 'set-group <name> <group>');
      const user = await requireUser(name!);
      const group = await requireGroup(groupName!);
      await users.setGroup(user.id, group.id);
      ctx.out(`user ${user.name} is now in group ${group.name}`);
      return;
    }
    case 'list-users': {
      positionals(parse({}).positionals, 0, 'list-users');
      const rows = await users.listUsers();
      ctx.out(['id', 'name', 'group', 'used_bytes', 'quota_bytes', 'used'].join('\t'));
      for (const user of rows) {
        ctx.out([user.id, user.name, user.groupName, user.usedBytes, user.quotaBytes, `${formatByteSize(user.usedBytes)} / ${formatByteSize(user.quotaBytes)}`].join('\t'));
      }
      return;
    }
    case 'create-group': {
      const { positionals: names, values } = parse({ 'max-file-size': { type: 'string' }, quota: { type: 'string' } });
      const [name] = positionals(names, 1, 'create-group <name> --max-file-size <size> --quota <size>');
      if (!values['max-file-size'] || !values.quota) throw new UsageError('usage: create-group <name> --max-file-size <size> --quota <size>');
      if (!/^[\w.-]{1,64}$/.test(name!)) throw new Error('group name must be 1-64 letters, digits or _.-');
      const maxFileSize = parseByteSize(values['max-file-size']);
      const quotaBytes = parseByteSize(values.quota);
      checkMaxFileSize(maxFileSize);
      if (await users.findGroupByName(name!)) throw new Error(`group ${name} already exists`);
      await users.createGroup({ name: name!, maxFileSize, quotaBytes });
      ctx.out(`created group ${name}: max file size ${formatByteSize(maxFileSize)}, quota ${formatByteSize(quotaBytes)}`);
      return;
    }
    case 'edit-group': {
      const { positionals: names, values } = parse({ 'max-file-size': { type: 'string' }, quota: { type: 'string' }, rename: { type: 'string' } });
      const [name] = positionals(names, 1, 'edit-group <name> [--max-file-size <size>] [--quota <size>] [--rename <new-name>]');
      const group = await requireGroup(name!);
      const maxFileSize = values['max-file-size'] === undefined ? undefined : parseByteSize(values['max-file-size']);
      const quotaBytes = values.quota === undefined ? undefined : parseByteSize(values.quota);
      if (maxFileSize !== undefined) checkMaxFileSize(maxFileSize);
      if (values.rename !== undefined) {
        if (!/^[\w.-]{1,64}$/.test(values.rename)) throw new Error('group name must be 1-64 letters, digits or _.-');
        if (group.name === 'default') throw new Error('the default group keeps its name: new users are put in it');
        if (await users.findGroupByName(values.rename)) throw new Error(`group ${values.rename} already exists`);
      }
      if (maxFileSize === undefined && quotaBytes === undefined && values.rename === undefined) throw new UsageError('nothing to change: give --max-file-size, --quota or --rename');
      await users.updateGroup(group.id, { name: values.rename, maxFileSize, quotaBytes });
      const updated = await requireGroup(values.rename ?? group.name);
      ctx.out(`group ${updated.name}: max file size ${formatByteSize(updated.maxFileSize)}, quota ${formatByteSize(updated.quotaBytes)}`);
      return;
    }
    case 'list-groups': {
      positionals(parse({}).positionals, 0, 'list-groups');
      ctx.out(['id', 'name', 'max_file_size', 'quota_bytes'].join('\t'));
      for (const group of await users.listGroups()) ctx.out([group.id, group.name, group.maxFileSize, group.quotaBytes].join('\t'));
      return;
    }
    case 'create-category': {
      const [name, categoryName] = positionals(parse({}).positionals, 2, 'create-category <user> <name>');
      const user = await requireUser(name!);
      const parsed = categoryNameSchema.safeParse(categoryName);
      if (!parsed.success) throw new Error('category name must be 1-64 characters, without control characters');
      const trimmed = parsed.data;
      const created = await createCategoriesRepository(ctx.db).create(user.id, trimmed);
      if (!created) throw new Error(`user ${user.name} already has a category named ${trimmed}`);
      ctx.out(`created category ${trimmed} (id ${created.id}) for ${user.name}`);
      return;
    }
    case 'list-categories': {
      const [name] = positionals(parse({}).positionals, 1, 'list-categories <user>');
      const user = await requireUser(name!);
      ctx.out(['id', 'name', 'default', 'images'].join('\t'));
      for (const category of await createCategoriesRepository(ctx.db).listForUser(user.id)) {
        ctx.out([category.id, category.name, category.isDefault ? 'yes' : 'no', category.imageCount].join('\t'));
      }
      return;
    }
    case 'purge-bin': {
      const { positionals: extra, values } = parse({ user: { type: 'string' }, 'older-than-days': { type: 'string' } });
      positionals(extra, 0, 'purge-bin [--user <name>] [--older-than-days <n>]');
      const user = values.user === undefined ? undefined : await requireUser(values.user);
      let deletedBefore: Date | undefined;
      if (values['older-than-days'] !== undefined) {
        if (!/^\d+$/.test(values['older-than-days'])) throw new Error('--older-than-days must be a whole number');
        deletedBefore = new Date(Date.now() - Number(values['older-than-days']) * 24 * 60 * 60 * 1000);
      }
      const storage = createFileStorage({ storageDir: ctx.config.storageDir, timeZone: ctx.config.timeZone });
      const { bin } = createServices({
        config: ctx.config,
        db: ctx.db,
        storage,
        media: createMediaProcessor(),
        metrics: createMetrics(),
        logger: pino({ level: 'silent' }),
      });
      const purged = await bin.purgeBinned({ deletedBefore, userId: user?.id });
      ctx.out(`purged ${purged} image(s) from the recycle bin`);
      return;
    }
    default:
      throw new UsageError(`unknown command "${command}" (see --help)`);
  }
}
