import path from 'node:path';
import { createCategoriesRepository } from '../categories/categories-repository';
import { categoryNameSchema } from '../categories/category-name';
import { isValidGroupName, UserAdminError } from '../users/user-admin';
import { isValidUserName } from '../users/user-name';
import { createUsersRepository } from '../users/users-repository';
import { createImageImport, reasonOf } from './image-import';
import type { ImportDeps } from './import-deps';
import { createImportRecordsRepository } from './import-records-repository';
import { createImportReport, finishImport } from './import-report';
import { readLskyDatabase, type LskyGroup, type LskyUser } from './lsky-source';

const KIB = 1024;

/**
 * Lsky Pro 2.x: groups, users (named by their email, the name they signed in with), albums as
 * categories, then images into their owner's category, each recorded so a second run skips it.
 */
export async function importLsky(databaseFile: string, storageDir: string, mapFile: string, timeZone: string, deps: ImportDeps): Promise<void> {
  const { ctx } = deps;
  const source = `lsky:${databaseFile}`;
  const lsky = await readLskyDatabase(databaseFile, timeZone);
  await deps.storage.prepare();
  const users = createUsersRepository(deps.db);
  const categories = createCategoriesRepository(deps.db);
  const records = createImportRecordsRepository(deps.db);
  const images = createImageImport({ uploads: deps.services.uploads, temp: deps.storage.temp, records });
  const report = createImportReport(ctx, lsky.groups.length + lsky.users.length + lsky.albums.length + lsky.images.length);
  ctx.err(`importing ${lsky.users.length} user(s), ${lsky.albums.length} album(s) and ${lsky.images.length} image(s) from ${databaseFile}`);

  const groupNames = new Map<number, string>();
  for (const group of lsky.groups) {
    const known = await records.findTarget(source, 'group', String(group.id));
    if (known !== null) {
      const existing = await users.findGroupById(known);
      if (existing) groupNames.set(group.id, existing.name);
      report.row('skipped', 'group', String(group.id), 'already imported');
      continue;
    }
    try {
      const created = await importGroup(group, lsky.users, deps);
      groupNames.set(group.id, created.name);
      await records.record(source, 'group', String(group.id), created.id);
      report.row('imported', 'group', String(group.id), created.name);
    } catch (error) {
      report.row('failed', 'group', String(group.id), reasonOf(error));
    }
  }

  const userIds = new Map<number, number>();
  for (const user of lsky.users) {
    const known = await records.findTarget(source, 'user', String(user.id));
    if (known !== null) {
      userIds.set(user.id, known);
      report.row('skipped', 'user', String(user.id), 'already imported');
      continue;
    }
    const name = isValidUserName(user.email) ? user.email : `lsky-${user.id}`;
    try {
      const created = await deps.services.userAdmin.createUser({ name, groupName: user.groupId === null ? undefined : groupNames.get(user.groupId), isAdmin: user.isAdmin });
      await records.record(source, 'user', String(user.id), created.id);
      userIds.set(user.id, created.id);
      report.row('imported', 'user', String(user.id), `${name} (no password: set-password, or the account token from reset-token)`);
    } catch (error) {
      const reason = error instanceof UserAdminError && error.failure === 'name-taken' ? `a user named ${name} is already here (not from this import)` : reasonOf(error);
      report.row('failed', 'user', String(user.id), reason);
    }
  }

  const categoryIds = new Map<number, number>();
  for (const album of lsky.albums) {
    const known = await records.findTarget(source, 'album', String(album.id));
    if (known !== null) {
      categoryIds.set(album.id, known);
      report.row('skipped', 'album', String(album.id), 'already imported');
      continue;
    }
    const ownerId = userIds.get(album.userId);
    const parsed = categoryNameSchema.safeParse(album.name);
    if (ownerId === undefined) report.row('failed', 'album', String(album.id), `its owner (user ${album.userId}) was not imported`);
    else if (!parsed.success) report.row('failed', 'album', String(album.id), 'its name is not a category name here (1-64 characters, no control characters)');
    else {
      const category = (await categories.create(ownerId, parsed.data)) ?? (await categories.listForUser(ownerId)).find((candidate) => candidate.name === parsed.data)!;
      await records.record(source, 'album', String(album.id), category.id);
      categoryIds.set(album.id, category.id);
      report.row('imported', 'album', String(album.id), parsed.data);
    }
  }

  const owners = new Set<number>();
  for (const image of lsky.images) {
    const ownerId = image.userId === null ? undefined : userIds.get(image.userId);
    const owner = ownerId === undefined ? null : await users.findById(ownerId);
    if (!owner) {
      const already = (await records.findTarget(source, 'image', String(image.id))) !== null;
      if (already) report.row('skipped', 'image', image.oldPath, 'already imported');
      else report.row(image.userId === null ? 'skipped' : 'failed', 'image', image.oldPath, image.userId === null ? 'a guest upload: it has no owner' : `its owner (user ${image.userId}) was not imported`);
      continue;
    }
    owners.add(owner.id);
    const result = await images.importImage(source, {
      sourceId: String(image.id),
      oldPath: image.oldPath,
      file: path.join(storageDir, ...image.pathname.split('/')),
      originalName: image.originalName,
      uploadedAt: image.uploadedAt,
      owner,
      categoryId: image.albumId === null ? undefined : categoryIds.get(image.albumId),
    });
    report.row(result.outcome, 'image', image.oldPath, result.outcome === 'imported' ? result.url : result.reason);
  }

  // Disabled on Lsky, disabled here: only after their images are in (an upload of a disabled user is
  // refused), and on every run, so that a run stopped before this point cannot leave one enabled. Until
  // then the account has no password and a token nobody was shown.
  for (const user of lsky.users.filter((candidate) => !candidate.active)) {
    const id = userIds.get(user.id);
    if (id !== undefined) await deps.services.userAdmin.updateUser(id, { disabled: true });
  }

  await finishImport(report, { records, source, owners: [...owners], mapFile, header: `Lsky Pro ${databaseFile}`, deps });
}

/** A Lsky group as a group here: its name and max file size; as quota, the largest capacity of its users. */
async function importGroup(group: LskyGroup, lskyUsers: LskyUser[], deps: ImportDeps) {
  const users = createUsersRepository(deps.db);
  // A Lsky group name that is not a group name here (1-64 ASCII letters, digits, _.-; Lsky's default is 默认组) becomes lsky-<id>.
  const name = isValidGroupName(group.name) ? group.name : `lsky-${group.id}`;
  const existing = await users.findGroupByName(name);
  if (existing) return existing;
  const fallback = (await users.findGroupByName('default'))!;
  const capacity = Math.max(0, ...lskyUsers.filter((user) => user.groupId === group.id).map((user) => user.capacityKib));
  return deps.services.userAdmin.createGroup({
    name,
    maxFileSize: group.maximumFileSizeKib === null ? fallback.maxFileSize : Math.min(Math.round(group.maximumFileSizeKib * KIB), deps.maxUploadBytes),
    quotaBytes: capacity > 0 ? Math.round(capacity * KIB) : fallback.quotaBytes,
  });
}
