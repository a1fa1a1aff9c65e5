import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import type { AdminImagesService } from '../images/admin-images-service';
import { formatOfType } from '../media/media-processor';
import type { SiteSettingsService } from '../settings/site-settings';
import type { AdminService } from '../users/admin-service';
import type { ActionHandler } from './actions';
import {
  bodyOrQuery,
  bodyText,
  parseId,
  parseIds,
  parseOptionalBoolean,
  parseOptionalBytes,
  parseOptionalDay,
  parseOptionalId,
  parseOptionalText,
  parsePageQuery,
  type RawFields,
} from './image-params';

function requiredBytes(value: unknown): number {
  const bytes = parseOptionalBytes(value);
  if (bytes === undefined) throw new AppError('badParameter', 200);
  return bytes;
}

function requiredBoolean(value: unknown): boolean {
  const flag = parseOptionalBoolean(value);
  if (flag === undefined) throw new AppError('badParameter', 200);
  return flag;
}

/** `type`: a format, extension or MIME type (png, jpg, image/webp); `status`: stored or binned. */
function parseImageFilter(query: RawFields) {
  const type = parseOptionalText(query.type, 64);
  const format = type === undefined ? undefined : formatOfType(type);
  if (type !== undefined && format === undefined) throw new AppError('unsupportedType', 200);
  const status = parseOptionalText(query.status, 16);
  if (status !== undefined && status !== 'stored' && status !== 'binned') throw new AppError('badParameter', 200);
  const resting: 'stored' | 'binned' | undefined = status;
  return {
    userName: parseOptionalText(query.username, 64),
    format,
    status: resting,
    minSize: parseOptionalBytes(query.min_size),
    maxSize: parseOptionalBytes(query.max_size),
    from: parseOptionalDay(query.from),
    to: parseOptionalDay(query.to),
  };
}

/** `site_name`: 1-64 characters without control characters; empty: back to none (the web app's own name). */
function parseSiteName(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new AppError('siteNameInvalid', 200);
  const name = value.trim();
  if (name === '') return null;
  if ([...name].length > 64 || /\p{Cc}/u.test(name)) throw new AppError('siteNameInvalid', 200);
  return name;
}

/** Admin users' management of users, groups, every user's images and the site settings (the routes admit only an admin's session). */
export function createAdminActions(deps: { admin: AdminService; adminImages: AdminImagesService; siteSettings: SiteSettingsService }) {
  const { admin, adminImages, siteSettings } = deps;
  const settingsView = async () => {
    const { values, fixedBy } = await siteSettings.describe();
    return {
      site_name: values.siteName,
      registration_enabled: values.registrationEnabled,
      default_group: values.defaultGroup,
      fixed_by_env: { site_name: fixedBy.siteName, registration_enabled: fixedBy.registrationEnabled, default_group: fixedBy.defaultGroup },
    };
  };
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
    admin_ban_uploads: async ({ body, query }) => ({
      message: Messages.uploadsBanChanged,
      data: await admin.setUploadsBanned(parseId(bodyOrQuery(body, query, 'id')), requiredBoolean(body.banned)),
    }),
    admin_images: async ({ query }) => {
      const page = parsePageQuery(query);
      return { message: Messages.ok, data: await adminImages.list({ ...parseImageFilter(query), page: page.page, limit: page.limit }) };
    },
    admin_bin_images: async ({ body, query }) => ({ message: Messages.ok, data: await adminImages.binMany(parseIds(bodyOrQuery(body, query, 'ids'))) }),
    admin_purge_images: async ({ body, query }) => ({ message: Messages.ok, data: await adminImages.purgeMany(parseIds(bodyOrQuery(body, query, 'ids'))) }),
    admin_settings: async () => ({ message: Messages.ok, data: await settingsView() }),
    admin_update_settings: async ({ body }) => {
      await siteSettings.update({
        siteName: parseSiteName(body.site_name),
        registrationEnabled: parseOptionalBoolean(body.registration_enabled),
        defaultGroupId: parseOptionalId(body.default_group_id),
      });
      return { message: Messages.settingsSaved, data: await settingsView() };
    },
  } satisfies Record<string, ActionHandler>;
}
