import { randomBytes } from 'node:crypto';
import { hashPassword, isAcceptablePassword, verifyPassword, type SignInLimiter } from '@platform/kit';
import { isbot } from 'isbot';
import { AppError } from '../errors/app-error';
import type { CategoriesRepository } from '../categories/categories-repository';
import type { ImageViews } from '../images/image-views';
import type { LinkSigner } from '../images/link-signer';
import type { UserRow } from '../users/users-repository';
import { SHARE_PAGE_SIZE, type SharedImage, type ShareLinkRow, type SharingRepository } from './sharing-repository';

export type ShareLinkState = 'active' | 'revoked' | 'expired' | 'used_up';

export interface NewShareLink {
  categoryId: number;
  /** Empty: no password. */
  password: string;
  expiresInHours?: number;
  maxViews?: number;
}

/** What a share page shows of an image: its `/i/` address, its signed thumbnail, its public page when on. */
export interface SharedImageView {
  name: string;
  url: string;
  thumbUrl: string;
  width: number;
  height: number;
}

/** What the viewer of `/s/<token>` brings: the link ids their signed cookies name, and their user agent. */
export interface ShareViewer {
  /** The link id of the signed viewer cookie: this browser has already taken a view of it. */
  viewerOf?: string;
  /** The link id of the signed password cookie: this browser gave the link's password. */
  unlockedFor?: string;
  userAgent: string;
  /** A HEAD request (link checkers, prefetchers): it reads no page, so it takes no view. */
  headOnly?: boolean;
  /** The page of the album asked for (`?page=`), from 1. */
  page?: number;
}

export type ShareOutcome =
  | { kind: 'missing' }
  | { kind: 'gone'; state: Exclude<ShareLinkState, 'active'> }
  | { kind: 'password'; linkId: number; albumName: string }
  /** `preview`: a link-preview bot, shown the album's title and first thumbnail only. `newViewer`: set the viewer cookie. */
  | { kind: 'album'; linkId: number; albumName: string; images: SharedImageView[]; preview: boolean; newViewer: boolean; paging: AlbumPaging };

/** Where a share page is in its album: `page` of `pages` (at least 1), `total` images. */
export interface AlbumPaging {
  page: number;
  pages: number;
  total: number;
}

export type PasswordOutcome =
  | { kind: 'missing' }
  | { kind: 'gone'; state: Exclude<ShareLinkState, 'active'> }
  | { kind: 'accepted'; linkId: number }
  | { kind: 'wrong'; linkId: number; albumName: string }
  | { kind: 'throttled'; linkId: number; albumName: string; retryAfterSeconds: number };

export function shareLinkState(link: Pick<ShareLinkRow, 'revokedAt' | 'expiresAt' | 'maxViews' | 'viewCount'>, now: Date): ShareLinkState {
  if (link.revokedAt) return 'revoked';
  if (link.expiresAt && link.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (link.maxViews !== null && link.viewCount >= link.maxViews) return 'used_up';
  return 'active';
}

/** 22 characters of base64url: 128 random bits, as unguessable as an image's `/i/` key. */
const newToken = () => randomBytes(16).toString('base64url');

/**
 * Album share links (a category shared by `/s/<token>`) and public image pages (`/p/<id>-<sig>`):
 * the owner's actions, and what a viewer of those pages gets.
 */
export function createSharingService(deps: {
  sharing: SharingRepository;
  categories: CategoriesRepository;
  views: ImageViews;
  signer: LinkSigner;
  /** The kit's sign-in limiter, counting password attempts per address and per link. */
  limiter: SignInLimiter;
  publicBaseUrl: string;
}) {
  const { sharing, views } = deps;
  const shareUrl = (token: string) => `${deps.publicBaseUrl}/s/${token}`;
  const pageUrl = (imageId: number) => `${deps.publicBaseUrl}/p/${imageId}-${deps.signer.page.sign(imageId)}`;
  const imageView = (image: SharedImage): SharedImageView => ({
    name: image.originalName,
    url: views.imageUrl(image.storageKey),
    thumbUrl: views.thumbUrl(image.id),
    width: image.width,
    height: image.height,
  });
  const linkView = (link: ShareLinkRow, now: Date) => ({
    id: link.id,
    category_id: link.categoryId,
    category_name: link.categoryName,
    url: shareUrl(link.token),
    has_password: link.passwordHash !== null,
    expire_time: link.expiresAt ? views.formatTime(link.expiresAt) : null,
    max_views: link.maxViews,
    view_count: link.viewCount,
    state: shareLinkState(link, now),
    create_time: views.formatTime(link.createdAt),
  });

  return {
    async create(user: UserRow, request: NewShareLink, now: Date) {
      if (request.password !== '' && !isAcceptablePassword(request.password)) throw new AppError('passwordUnacceptable', 200);
      if (!(await deps.categories.findOwned(user.id, request.categoryId))) throw new AppError('categoryNotFound', 200);
      const link = await sharing.create({
        userId: user.id,
        categoryId: request.categoryId,
        token: newToken(),
        passwordHash: request.password === '' ? null : await hashPassword(request.password),
        expiresAt: request.expiresInHours === undefined ? null : new Date(now.getTime() + request.expiresInHours * 3_600_000),
        maxViews: request.maxViews ?? null,
      });
      return linkView(link, now);
    },

    async list(user: UserRow, categoryId: number | undefined, now: Date) {
      return { list: (await sharing.listForUser(user.id, categoryId)).map((link) => linkView(link, now)) };
    },

    async revoke(user: UserRow, id: number, now: Date) {
      if (!(await sharing.revoke(user.id, id, now))) throw new AppError('shareLinkNotFound', 200);
      return linkView((await sharing.findOwned(user.id, id))!, now);
    },

    /** `public`: the image's own opt-in; `album_public`: its album's; the page is on while either is. */
    async imagePage(user: UserRow, imageId: number) {
      const state = await sharing.imagePageState(user.id, imageId);
      if (state === null) throw new AppError('imageNotFound', 200);
      return { id: imageId, public: state.own, album_public: state.album, page_url: state.own || state.album ? pageUrl(imageId) : null };
    },

    async setImagePage(user: UserRow, imageId: number, on: boolean, now: Date) {
      if (!(await sharing.setImagePage(user.id, imageId, on, now))) throw new AppError('imageNotFound', 200);
      return this.imagePage(user, imageId);
    },

    /** The public pages of every image of an album (category): on, or off again except those opted in one by one. */
    async setAlbumPages(user: UserRow, categoryId: number, on: boolean, now: Date) {
      if (!(await sharing.setAlbumPages(user.id, categoryId, on, now))) throw new AppError('categoryNotFound', 200);
      return { category_id: categoryId, pages_public: on };
    },

    /**
     * Opening `/s/<token>`: the password first (its form takes no view), then the view. A browser
     * that took a view already (signed cookie) and a link-preview bot take none; a bot sees the
     * album's title and cover only, so a spoofed user agent cannot read an album without a view.
     */
    async open(token: string, viewer: ShareViewer, now: Date): Promise<ShareOutcome> {
      const link = await sharing.findByToken(token);
      if (!link) return { kind: 'missing' };
      const linkId = String(link.id);
      const returning = viewer.viewerOf === linkId;
      const state = shareLinkState(link, now);
      if (state !== 'active' && !(state === 'used_up' && returning)) return { kind: 'gone', state };
      if (link.passwordHash !== null && viewer.unlockedFor !== linkId) return { kind: 'password', linkId: link.id, albumName: link.categoryName };
      const preview = !returning && (viewer.headOnly === true || isbot(viewer.userAgent));
      if (!returning && !preview && !(await sharing.takeView(link.id, now))) {
        // Another viewer took the last view (or the owner revoked) since the row was read.
        const current = await sharing.findByToken(token);
        const currentState = current ? shareLinkState(current, now) : 'revoked';
        return { kind: 'gone', state: currentState === 'active' ? 'used_up' : currentState };
      }
      const asked = preview ? 1 : Math.max(1, viewer.page ?? 1);
      let found = await sharing.albumImages(link.userId, link.categoryId, asked);
      const pages = Math.max(1, Math.ceil(found.total / SHARE_PAGE_SIZE));
      // A page past the last (the album shrank since the link to it was followed): the last page.
      const page = Math.min(asked, pages);
      if (page !== asked) found = await sharing.albumImages(link.userId, link.categoryId, page);
      const images = found.images.map(imageView);
      const paging = { page, pages, total: found.total };
      return { kind: 'album', linkId: link.id, albumName: link.categoryName, images: preview ? images.slice(0, 1) : images, preview, newViewer: !returning && !preview, paging };
    },

    /** The password form's POST: limited per client address and per link by the kit's sign-in limiter. */
    async unlock(token: string, password: string, address: string, now: Date): Promise<PasswordOutcome> {
      const link = await sharing.findByToken(token);
      if (!link) return { kind: 'missing' };
      const state = shareLinkState(link, now);
      if (state !== 'active') return { kind: 'gone', state };
      if (link.passwordHash === null) return { kind: 'accepted', linkId: link.id };
      const refused = { linkId: link.id, albumName: link.categoryName };
      for (const take of [() => deps.limiter.countAttempt(address), () => deps.limiter.takePasswordCheck(String(link.id))]) {
        const verdict = await take();
        if (!verdict.allowed) return { kind: 'throttled', ...refused, retryAfterSeconds: verdict.retryAfterSeconds };
      }
      if (!(await verifyPassword(password, link.passwordHash))) return { kind: 'wrong', ...refused };
      await deps.limiter.passwordAccepted(String(link.id));
      return { kind: 'accepted', linkId: link.id };
    },

    /** `/p/<id>-<sig>`: the image while its page is on, else null (answered 404). */
    async publicPage(key: string) {
      const match = /^([1-9]\d{0,15})-([A-Za-z0-9_-]{1,64})$/.exec(key);
      if (!match) return null;
      const id = Number(match[1]);
      if (!Number.isSafeInteger(id) || !deps.signer.page.verify(id, match[2]!)) return null;
      const image = await sharing.publicPageImage(id);
      return image ? { ...imageView(image), pageUrl: pageUrl(id) } : null;
    },
  };
}

export type SharingService = ReturnType<typeof createSharingService>;
