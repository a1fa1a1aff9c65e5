import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import pino from 'pino';
import { describeSchema } from '@platform/kit';
import { createServices } from '../app';
import { createCategoriesRepository } from '../categories/categories-repository';
import { createImagesRepository } from '../images/images-repository';
import { categoryNameSchema } from '../categories/category-name';
import type { ImagesConfig } from '../config';
import { createMediaProcessor } from '../media/media-processor';
import { createMetrics } from '../metrics/metrics';
import { createStorage, type Storage } from '../storage/storage';
import { createUsersRepository, type GroupRow } from '../users/users-repository';
import { formatByteSize, parseByteSize } from '../users/byte-sizes';
import { positionals, UsageError, yesOrNo } from './command-args';
import { migrateStorage } from './storage-progress';
import { DEFAULT_MIGRATION_CONCURRENCY } from '../images/storage-migration';

export interface AdminContext {
  db: Knex;
  config: ImagesConfig;
  out(line: string): void;
  err(line: string): void;
  /** What the operator piped into the command (a password), when the command reads stdin. */
  input?: string;
  /** Redraws a line in place (a progress bar), when the CLI's stderr is a terminal; else progress comes as plain lines. */
  redraw?(text: string): void;
}

/** Runs one admin command; returns the exit status. Errors are printed as one `error:` line on stderr. */
export async function runAdminCommand(argv: string[], ctx: AdminContext): Promise<number> {
  const [command, ...rest] = argv;
  let storage: Storage | undefined;
  try {
    if (!command) throw new UsageError('missing command');
    storage = createStorage({ backend: ctx.config.storageBackend, storageDir: ctx.config.storageDir, timeZone: ctx.config.timeZone, s3: ctx.config.s3 });
    await dispatch(command, rest, ctx, storage);
    return 0;
  } catch (error) {
    ctx.err(`error: ${(error as Error).message}`);
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      ctx.err('run with --help for usage');
      return 2;
    }
    return 1;
  } finally {
    await storage?.close();
  }
}

function describeGroup(prefix: string, group: GroupRow): string {
  return `${prefix} ${group.name}: max file size ${formatByteSize(group.maxFileSize)}, quota ${formatByteSize(group.quotaBytes)}, ${group.keepMetadata ? 'keeps' : 'strips'} photo metadata`;
}

async function dispatch(command: string, args: string[], ctx: AdminContext, storage: Storage): Promise<void> {
  const users = createUsersRepository(ctx.db);
  const services = createServices({
    config: ctx.config,
    db: ctx.db,
    storage,
    media: createMediaProcessor(),
    metrics: createMetrics(),
    logger: pino({ level: 'silent' }),
  });
  const { userAdmin, bin, storageMigration } = services;
  const passwordFromStdin = () => {
    const password = (ctx.input ?? '').split(/\r?\n/)[0] ?? '';
    if (password === '') throw new UsageError('no password on stdin (pipe it in: echo "$PASSWORD" | … )');
    return password;
  };
  const parse = (options: Record<string, { type: 'string' }>) => parseArgs({ args, options, allowPositionals: true, strict: true });
  const requireUser = async (name: string) => {
    const user = await users.findByName(name);
    if (!user) throw new Error(`user ${name} does not exist`);
    return user;
  };
  switch (command) {
    case 'create-user': {
      const { positionals: names, values } = parseArgs({
        args,
        options: { group: { type: 'string' }, admin: { type: 'boolean' }, 'password-stdin': { type: 'boolean' } },
        allowPositionals: true,
        strict: true,
      });
      const [name] = positionals(names, 1, 'create-user <name> [--group <group>] [--admin] [--password-stdin]');
      const password = values['password-stdin'] ? passwordFromStdin() : undefined;
      const created = await userAdmin.createUser({ name: name!, groupName: values.group, password, isAdmin: values.admin ?? false });
      ctx.out(`created user ${name!.trim()} (id ${created.id}) in group ${values.group ?? 'default'}${values.admin ? ', admin' : ''}${password ? ', with a password' : ''}`);
      ctx.out(`token (store it now; the user also sees it in the account area): ${created.token}`);
      return;
    }
    case 'reset-token': {
      const [name] = positionals(parse({}).positionals, 1, 'reset-token <name>');
      const { token } = await userAdmin.resetToken((await requireUser(name!)).id);
      ctx.out(`new token for ${name} (the old one no longer works): ${token}`);
      return;
    }
    case 'set-password': {
      const [name] = positionals(parse({}).positionals, 1, 'set-password <name>   (the password is the first line of stdin)');
      const user = await requireUser(name!);
      await userAdmin.setPassword(user.id, passwordFromStdin());
      ctx.out(`password of ${user.name} set`);
      return;
    }
    case 'set-group': {
      const [name, groupName] = positionals(parse({}).positionals, 2, 'set-group <name> <group>');
      const user = await userAdmin.updateUser((await requireUser(name!)).id, { groupName });
      ctx.out(`user ${user.name} is now in group ${user.groupName}`);
      return;
    }
    case 'set-admin': {
      const [name, flag] = positionals(parse({}).positionals, 2, 'set-admin <name> yes|no');
      if (flag !== 'yes' && flag !== 'no') throw new UsageError('usage: set-admin <name> yes|no');
      const user = await userAdmin.updateUser((await requireUser(name!)).id, { isAdmin: flag === 'yes' });
      ctx.out(`user ${user.name} is ${user.isAdmin ? 'now an admin' : 'no longer an admin'}`);
      return;
    }
    case 'disable-user':
    case 'enable-user': {
      const [name] = positionals(parse({}).positionals, 1, `${command} <name>`);
      const user = await userAdmin.updateUser((await requireUser(name!)).id, { disabled: command === 'disable-user' });
      ctx.out(`user ${user.name} ${user.disabled ? 'disabled: every credential stops at once' : 'enabled'}`);
      return;
    }
    case 'list-users': {
      positionals(parse({}).positionals, 0, 'list-users');
      const rows = await users.listUsers();
      ctx.out(['id', 'name', 'group', 'used_bytes', 'quota_bytes', 'used', 'admin', 'disabled'].join('\t'));
      for (const user of rows) {
        ctx.out(
          [user.id, user.name, user.groupName, user.usedBytes, user.quotaBytes, `${formatByteSize(user.usedBytes)} / ${formatByteSize(user.quotaBytes)}`, user.isAdmin ? 'yes' : 'no', user.disabled ? 'yes' : 'no'].join('\t'),
        );
      }
      return;
    }
    case 'create-group': {
      const { positionals: names, values } = parse({ 'max-file-size': { type: 'string' }, quota: { type: 'string' }, 'keep-metadata': { type: 'string' } });
      const usage = 'create-group <name> --max-file-size <size> --quota <size> [--keep-metadata yes|no]';
      const [name] = positionals(names, 1, usage);
      if (!values['max-file-size'] || !values.quota) throw new UsageError(`usage: ${usage}`);
      const group = await userAdmin.createGroup({
        name: name!,
        maxFileSize: parseByteSize(values['max-file-size']),
        quotaBytes: parseByteSize(values.quota),
        keepMetadata: yesOrNo(values['keep-metadata'], usage),
      });
      ctx.out(describeGroup('created group', group));
      return;
    }
    case 'edit-group': {
      const { positionals: names, values } = parse({ 'max-file-size': { type: 'string' }, quota: { type: 'string' }, rename: { type: 'string' }, 'keep-metadata': { type: 'string' } });
      const usage = 'edit-group <name> [--max-file-size <size>] [--quota <size>] [--rename <new-name>] [--keep-metadata yes|no]';
      const [name] = positionals(names, 1, usage);
      const maxFileSize = values['max-file-size'] === undefined ? undefined : parseByteSize(values['max-file-size']);
      const quotaBytes = values.quota === undefined ? undefined : parseByteSize(values.quota);
      const keepMetadata = yesOrNo(values['keep-metadata'], usage);
      if (maxFileSize === undefined && quotaBytes === undefined && values.rename === undefined && keepMetadata === undefined) {
        throw new UsageError('nothing to change: give --max-file-size, --quota, --rename or --keep-metadata');
      }
      const updated = await userAdmin.updateGroup(name!, { rename: values.rename, maxFileSize, quotaBytes, keepMetadata });
      ctx.out(describeGroup('group', updated));
      return;
    }
    case 'list-groups': {
      positionals(parse({}).positionals, 0, 'list-groups');
      ctx.out(['id', 'name', 'max_file_size', 'quota_bytes', 'keep_metadata', 'users'].join('\t'));
      for (const group of await users.listGroups()) ctx.out([group.id, group.name, group.maxFileSize, group.quotaBytes, group.keepMetadata ? 'yes' : 'no', group.userCount].join('\t'));
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
      const purged = await bin.purgeBinned({ deletedBefore, userId: user?.id });
      ctx.out(`purged ${purged} image(s) from the recycle bin`);
      return;
    }
    case 'storage:status': {
      positionals(parse({}).positionals, 0, 'storage:status');
      const counts = await createImagesRepository(ctx.db).countByBackend();
      ctx.out(`new uploads go to: ${ctx.config.storageBackend}`);
      ctx.out(['backend', 'images', 'mid_step'].join('\t'));
      for (const backend of ['local', 's3'] as const) {
        const count = counts.find((candidate) => candidate.backend === backend);
        ctx.out([backend, count?.atRest ?? 0, count?.inStep ?? 0].join('\t'));
      }
      return;
    }
    case 'storage:migrate': {
      const usage = 'storage:migrate --to s3|local [--concurrency <1-64>]';
      const { positionals: extra, values } = parse({ to: { type: 'string' }, concurrency: { type: 'string' } });
      positionals(extra, 0, usage);
      if (values.to !== 's3' && values.to !== 'local') throw new UsageError(`usage: ${usage}`);
      const concurrency = values.concurrency === undefined ? DEFAULT_MIGRATION_CONCURRENCY : Number(values.concurrency);
      if (!/^\d+$/.test(values.concurrency ?? '8') || concurrency < 1 || concurrency > 64) throw new UsageError(`usage: ${usage}`);
      if (!storage.isConfigured('s3')) throw new Error('storage:migrate needs the bucket: set S3_BUCKET (and S3_ENDPOINT, S3_REGION, ... as the service has them)');
      await storage.prepare();
      await migrateStorage(storageMigration, values.to, ctx, concurrency);
      return;
    }
    case 'import-from': {
      // Loaded when used: the PHP, SQLite and MySQL readers have no place in every CLI call or the service's start.
      const { runImportFrom } = await import('./import-command');
      await runImportFrom(args, { ctx, db: ctx.db, storage, services, maxUploadBytes: ctx.config.maxUploadBytes });
      return;
    }
    case 'migrate':
      // Reached through a running embedded process, which applied the migrations when it started.
      ctx.out(await describeSchema(ctx.db));
      return;
    default:
      throw new UsageError(`unknown command "${command}" (see --help)`);
  }
}
