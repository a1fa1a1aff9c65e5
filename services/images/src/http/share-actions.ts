import { Messages } from '../errors/messages';
import type { SharingService } from '../sharing/sharing-service';
import type { ActionHandler } from './actions';
import { bodyOrQuery, bodyText, parseId, parseOptionalId, parseBoolean, parseOptionalCount } from './image-params';

/** The owner's sharing actions: album share links and an image's public page. */
export function createShareActions(deps: { sharing: SharingService }) {
  const { sharing } = deps;
  return {
    share_links: async ({ principal, query, now }) => ({ message: Messages.ok, data: await sharing.list(principal.user, parseOptionalId(query.category_id), now) }),
    create_share_link: async ({ principal, body, query, now }) => ({
      message: Messages.shareLinkCreated,
      data: await sharing.create(
        principal.user,
        {
          categoryId: parseId(bodyOrQuery(body, query, 'category_id')),
          password: bodyText(body, 'password', 128),
          expiresInHours: parseOptionalCount(bodyOrQuery(body, query, 'expires_in_hours'), 8760),
          maxViews: parseOptionalCount(bodyOrQuery(body, query, 'max_views'), 1_000_000),
        },
        now,
      ),
    }),
    revoke_share_link: async ({ principal, body, query, now }) => ({
      message: Messages.shareLinkRevoked,
      data: await sharing.revoke(principal.user, parseId(bodyOrQuery(body, query, 'id')), now),
    }),
    image_page: async ({ principal, query }) => ({ message: Messages.ok, data: await sharing.imagePage(principal.user, parseId(query.id)) }),
    set_image_page: async ({ principal, body, query, now }) => {
      const on = parseBoolean(bodyOrQuery(body, query, 'public'));
      const data = await sharing.setImagePage(principal.user, parseId(bodyOrQuery(body, query, 'id')), on, now);
      return { message: on ? Messages.imagePageOn : Messages.imagePageOff, data };
    },
    set_album_pages: async ({ principal, body, query, now }) => {
      const on = parseBoolean(bodyOrQuery(body, query, 'public'));
      const data = await sharing.setAlbumPages(principal.user, parseId(bodyOrQuery(body, query, 'category_id')), on, now);
      return { message: on ? Messages.albumPagesOn : Messages.albumPagesOff, data };
    },
  } satisfies Record<string, ActionHandler>;
}
