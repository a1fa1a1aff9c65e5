import type { CategoriesService } from '../categories/categories-service';
import { Messages } from '../errors/messages';
import type { BinService } from '../images/bin-service';
import type { BulkService } from '../images/bulk-service';
import { parseImageName } from '../images/image-name';
import type { ListingService } from '../images/listing-service';
import type { RenameService } from '../images/rename-service';
import type { ProfileService } from '../users/profile-service';
import type { ActionHandler } from './actions';
import { bodyOrQuery, parseCategoryName, parseExpiry, parseId, parseIdOrIds, parseIds, parseLinksFlag, parsePageQuery } from './image-params';

/** The image and category actions (upload has its own route: it streams). */
export function createImageActions(deps: { listing: ListingService; bin: BinService; bulk: BulkService; categories: CategoriesService; profile: ProfileService; naming: RenameService }) {
  const { listing, bin, bulk, categories } = deps;
  return {
    list: async ({ principal, query, now }) => {
      const request = parsePageQuery(query);
      const withLinks = parseLinksFlag(query.links);
      return { message: Messages.ok, data: await listing.list(principal, now, request, { withLinks }) };
    },
    trash: async ({ principal, query, now }) => ({ message: Messages.ok, data: await listing.trash(principal, now, parsePageQuery(query)) }),
    delete: async ({ principal, body, query }) => {
      const target = parseIdOrIds(body, query);
      if ('ids' in target) return { message: Messages.ok, data: await bulk.deleteMany(principal.user, target.ids) };
      await bin.delete(principal.user, target.id);
      return { message: Messages.deleted };
    },
    restore: async ({ principal, body, query }) => {
      const target = parseIdOrIds(body, query);
      if ('ids' in target) return { message: Messages.ok, data: await bulk.restoreMany(principal.user, target.ids) };
      await bin.restore(principal.user, target.id);
      return { message: Messages.restored };
    },
    purge: async ({ principal, body, query }) => {
      const target = parseIdOrIds(body, query);
      if ('ids' in target) return { message: Messages.ok, data: await bulk.purgeMany(principal.user, target.ids) };
      await bin.purge(principal.user, target.id);
      return { message: Messages.purged };
    },
    move: async ({ principal, body, query }) => {
      const ids = parseIds(bodyOrQuery(body, query, 'ids'));
      return { message: Messages.ok, data: await bulk.moveMany(principal.user, ids, parseId(bodyOrQuery(body, query, 'category_id'))) };
    },
    // Extension: the displayed name only (id first, then the name's rules, then ownership).
    rename: async ({ principal, body, query }) => {
      const id = parseId(bodyOrQuery(body, query, 'id'));
      return { message: Messages.imageRenamed, data: await deps.naming.rename(principal.user, id, parseImageName(body.name)) };
    },
    // Extension: sets (expires_in or expires_at) or, with neither, clears when the image moves into the bin by itself.
    set_expiry: async ({ principal, body, query, now }) => {
      const id = parseId(bodyOrQuery(body, query, 'id'));
      const expiresAt = parseExpiry(bodyOrQuery(body, query, 'expires_in'), bodyOrQuery(body, query, 'expires_at'), now);
      return { message: expiresAt ? Messages.expirySet : Messages.expiryCleared, data: await deps.naming.setExpiry(principal.user, id, expiresAt ?? null) };
    },
    categories: async ({ principal }) => ({ message: Messages.ok, data: await categories.list(principal.user) }),
    create_category: async ({ principal, body, query }) => ({
      message: Messages.categoryCreated,
      data: await categories.create(principal.user, parseCategoryName(bodyOrQuery(body, query, 'name'))),
    }),
    rename_category: async ({ principal, body, query }) => ({
      message: Messages.categoryRenamed,
      data: await categories.rename(principal.user, parseId(bodyOrQuery(body, query, 'id')), parseCategoryName(bodyOrQuery(body, query, 'name'))),
    }),
    delete_category: async ({ principal, body, query }) => ({
      message: Messages.categoryDeleted,
      data: await categories.delete(principal.user, parseId(bodyOrQuery(body, query, 'id'))),
    }),
    profile: async ({ principal }) => ({ message: Messages.ok, data: await deps.profile.profile(principal.user) }),
  } satisfies Record<string, ActionHandler>;
}
