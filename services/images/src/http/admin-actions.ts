import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import type { AdminService } from '../users/admin-service';
import type { ActionHandler } from './actions';
import { bodyOrQuery, bodyText, parseId, parseOptionalBoolean, parseOptionalBytes, parseOptionalId, parsePageQuery } from './image-params';

function requiredBytes(value: unknown): number {
  const bytes = parseOptionalBytes(value);
  if (bytes === undefined) throw new AppError('badParameter', 200);
  return bytes;
}

/** Admin users' management of users and groups (the routes admit only an admin's session). */
export function createAdminActions(deps: { admin: AdminService }) {
  const { admin } = deps;
  return {
    admin_users: async ({ query }) => {
      const page = parsePageQuery(query);
      return { message: Messages.ok, data: await admin.listUsers({ page: page.page, limit: page.limit, keyword: page.keyword }) };
    },
    admin_create_user: async ({ body }) => ({
      message: Messages.userCreated,
      data: await admin.createUser({
        name: bodyText(body, 'username'),
        password: bodyText(body, 'password'),
        groupId: parseOptionalId(body.group_id),
        isAdmin: parseOptionalBoolean(body.is_admin),
      }),
    }),
    admin_update_user: async ({ principal, body, query }) => ({
      message: Messages.userUpdated,
      data: await admin.updateUser(principal, parseId(bodyOrQuery(body, query, 'id')), {
        groupId: parseOptionalId(body.group_id),
        isAdmin: parseOptionalBoolean(body.is_admin),
        disabled: parseOptionalBoolean(body.disabled),
        password: body.password === undefined ? undefined : bodyText(body, 'password'),
      }),
    }),
    admin_groups: async () => ({ message: Messages.ok, data: await admin.listGroups() }),
    admin_create_group: async ({ body }) => ({
      message: Messages.groupCreated,
      data: await admin.createGroup({
        name: bodyText(body, 'name', 200),
        maxFileSize: requiredBytes(body.max_file_size),
        quotaBytes: requiredBytes(body.quota_bytes),
        keepMetadata: parseOptionalBoolean(body.keep_metadata),
      }),
    }),
    admin_update_group: async ({ body, query }) => ({
      message: Messages.groupUpdated,
      data: await admin.updateGroup(parseId(bodyOrQuery(body, query, 'id')), {
        name: body.name === undefined ? undefined : bodyText(body, 'name', 200),
        maxFileSize: parseOptionalBytes(body.max_file_size),
        quotaBytes: parseOptionalBytes(body.quota_bytes),
        keepMetadata: parseOptionalBoolean(body.keep_metadata),
      }),
    }),
  } satisfies Record<string, ActionHandler>;
}
