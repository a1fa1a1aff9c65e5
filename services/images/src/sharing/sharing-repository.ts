import type { Knex } from 'knex';

export interface ShareLinkRow {
  id: number;
  userId: number;
  categoryId: number;
  categoryName: string;
  token: string;
  passwordHash: string | null;
  expiresAt: Date | null;
  maxViews: number | null;
  viewCount: number;
  revokedAt: Date | null;
  createdAt: Date;
}

/** What a share page shows of an image: never its deletion nonce, owner or category. */
export interface SharedImage {
  id: number;
  storageKey: string;
  originalName: string;
  width: number;
  height: number;
}

/** A share page lists this many images at most; further ones are on its next pages (`?page=2`…), newest first. */
export const SHARE_PAGE_SIZE = 100;

function toLink(row: Record<string, unknown>): ShareLinkRow {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    categoryId: Number(row.category_id),
    categoryName: String(row.category_name),
    token: String(row.token),
    passwordHash: (row.password_hash as string | null) ?? null,
    expiresAt: (row.expires_at as Date | null) ?? null,
    maxViews: row.max_views === null ? null : Number(row.max_views),
    viewCount: Number(row.view_count),
    revokedAt: (row.revoked_at as Date | null) ?? null,
    createdAt: row.created_at as Date,
  };
}

const toImage = (row: Record<string, unknown>): SharedImage => ({
  id: Number(row.id),
  storageKey: String(row.storage_key),
  originalName: String(row.original_name),
  width: Number(row.width),
  height: Number(row.height),
});

/** Share links and public image pages: the only code that reads or writes them. */
export function createSharingRepository(db: Knex) {
  const links = () =>
    db('share_links as s')
      .join('categories as c', 'c.id', 's.category_id')
      .select('s.*', 'c.name as category_name');

  return {
    async create(link: { userId: number; categoryId: number; token: string; passwordHash: string | null; expiresAt: Date | null; maxViews: number | null }): Promise<ShareLinkRow> {
      const [row] = await db('share_links')
        .insert({ user_id: link.userId, category_id: link.categoryId, token: link.token, password_hash: link.passwordHash, expires_at: link.expiresAt, max_views: link.maxViews })
        .returning('id');
      return (await this.findOwned(link.userId, Number((row as { id: unknown }).id)))!;
    },

    async listForUser(userId: number, categoryId?: number): Promise<ShareLinkRow[]> {
      const query = links().where('s.user_id', userId).orderBy('s.id', 'desc');
      if (categoryId !== undefined) query.where('s.category_id', categoryId);
      return (await query).map(toLink);
    },

    async findOwned(userId: number, id: number): Promise<ShareLinkRow | null> {
      const row = await links().where({ 's.id': id, 's.user_id': userId }).first();
      return row ? toLink(row) : null;
    },

    async findByToken(token: string): Promise<ShareLinkRow | null> {
      const row = await links().where('s.token', token).first();
      return row ? toLink(row) : null;
    },

    /** False when it is not the user's link; revoking twice keeps the first time. */
    async revoke(userId: number, id: number, now: Date): Promise<boolean> {
      const updated = await db('share_links').where({ id, user_id: userId }).update({ revoked_at: db.raw('coalesce(revoked_at, ?)', [now]) });
      return updated > 0;
    },

    /**
     * Takes one view, in one conditional UPDATE so concurrent viewers can never pass the limit
     * together; false when the link is revoked, expired or its views are used up.
     */
    async takeView(id: number, now: Date): Promise<boolean> {
      const updated = await db('share_links')
        .where({ id })
        .whereNull('revoked_at')
        .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
        .where((q) => q.whereNull('max_views').orWhereRaw('view_count < max_views'))
        .increment('view_count', 1);
      return Number(updated) > 0;
    },

    /**
     * One page of the album's stored images, newest first (binned and mid-step images are not shown),
     * and how many there are in all.
     */
    async albumImages(userId: number, categoryId: number, page: number): Promise<{ images: SharedImage[]; total: number }> {
      const album = () => db('images').where({ user_id: userId, category_id: categoryId, status: 'stored' });
      const [rows, counted] = await Promise.all([
        album()
          .orderBy('id', 'desc')
          .limit(SHARE_PAGE_SIZE)
          .offset((page - 1) * SHARE_PAGE_SIZE)
          .select('id', 'storage_key', 'original_name', 'width', 'height'),
        album().count({ n: '*' }).first(),
      ]);
      return { images: rows.map(toImage), total: Number((counted as { n: unknown } | undefined)?.n ?? 0) };
    },

    /** Turns the image's public page on or off; null when it is not the user's stored image. */
    async setImagePage(userId: number, imageId: number, on: boolean, now: Date): Promise<{ id: number; pagePublic: boolean } | null> {
      const updated = await db('images')
        .where({ id: imageId, user_id: userId, status: 'stored' })
        .update({ page_public_at: on ? db.raw('coalesce(page_public_at, ?)', [now]) : null });
      return updated > 0 ? { id: imageId, pagePublic: on } : null;
    },

    /** The image's own opt-in and its album's; null when it is not the user's stored image. */
    async imagePageState(userId: number, imageId: number): Promise<{ own: boolean; album: boolean } | null> {
      const row = await db('images as i')
        .join('categories as c', 'c.id', 'i.category_id')
        .where({ 'i.id': imageId, 'i.user_id': userId, 'i.status': 'stored' })
        .first('i.page_public_at', 'c.pages_public_at');
      return row ? { own: row.page_public_at !== null, album: row.pages_public_at !== null } : null;
    },

    /** Turns the public pages of every image of the user's category on or off; false when it is not the user's category. */
    async setAlbumPages(userId: number, categoryId: number, on: boolean, now: Date): Promise<boolean> {
      const updated = await db('categories')
        .where({ id: categoryId, user_id: userId })
        .update({ pages_public_at: on ? db.raw('coalesce(pages_public_at, ?)', [now]) : null });
      return updated > 0;
    },

    /** The image of a public page: only a stored image whose page is on, by itself or by its album. */
    async publicPageImage(imageId: number): Promise<SharedImage | null> {
      const row = await db('images as i')
        .join('categories as c', 'c.id', 'i.category_id')
        .where({ 'i.id': imageId, 'i.status': 'stored' })
        .where((q) => q.whereNotNull('i.page_public_at').orWhereNotNull('c.pages_public_at'))
        .first('i.id', 'i.storage_key', 'i.original_name', 'i.width', 'i.height');
      return row ? toImage(row) : null;
    },

  };
}

export type SharingRepository = ReturnType<typeof createSharingRepository>;
