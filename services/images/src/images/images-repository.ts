import type { Knex } from 'knex';

export type ImageStatus = 'stored' | 'binned';

export interface ImageRow {
  id: number;
  userId: number;
  categoryId: number;
  storageKey: string;
  thumbKey: string | null;
  format: string;
  originalName: string;
  fileSize: number;
  width: number;
  height: number;
  status: ImageStatus;
  createdAt: Date;
  deletedAt: Date | null;
}

export interface NewImage {
  userId: number;
  categoryId: number;
  storageKey: string;
  thumbKey: string | null;
  format: string;
  originalName: string;
  fileSize: number;
  width: number;
  height: number;
}

export interface ListFilter {
  userId: number;
  status: ImageStatus;
  categoryId?: number;
  keyword?: string;
  limit: number;
  offset: number;
}

function toImage(row: Record<string, unknown>): ImageRow {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    categoryId: Number(row.category_id),
    storageKey: String(row.storage_key),
    thumbKey: row.thumb_key === null ? null : String(row.thumb_key),
    format: String(row.format),
    originalName: String(row.original_name),
    fileSize: Number(row.file_size),
    width: Number(row.width),
    height: Number(row.height),
    status: row.status as ImageStatus,
    createdAt: row.created_at as Date,
    deletedAt: (row.deleted_at as Date | null) ?? null,
  };
}

/** LIKE pattern for a literal substring: %, _ and the escape character itself lose their meaning. */
function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export function createImagesRepository(db: Knex) {
  return {
    /**
     * Check-and-charge the owner's quota, run `commitFiles`, insert the row (and, when an idempotency
     * key was claimed, record its result), all in one transaction. The charge is one conditional
     * update, so concurrent uploads never overshoot the quota; it holds the user's row until commit.
     * Returns null, having run nothing else, when the bytes do not fit the quota.
     */
    async insertCharged(
      image: NewImage,
      commitFiles: () => Promise<void>,
      idempotency?: { key: string; result: (id: number) => unknown },
    ): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const charged = await trx('users')
          .where('id', image.userId)
          .whereRaw('used_bytes + ? <= (SELECT quota_bytes FROM groups WHERE groups.id = users.group_id)', [image.fileSize])
          .increment('used_bytes', image.fileSize);
        if (Number(charged) !== 1) return null;
        await commitFiles();
        const [row] = await trx('images')
          .insert({
            user_id: image.userId,
            category_id: image.categoryId,
            storage_key: image.storageKey,
            thumb_key: image.thumbKey,
            format: image.format,
            original_name: image.originalName,
            file_size: image.fileSize,
            width: image.width,
            height: image.height,
            status: 'stored',
          })
          .returning('*');
        const inserted = toImage(row as Record<string, unknown>);
        if (idempotency) {
          await trx('idempotency_keys')
            .where({ user_id: image.userId, key: idempotency.key })
            .update({ image_id: inserted.id, result: JSON.stringify(idempotency.result(inserted.id)) });
        }
        return inserted;
      });
    },

    async findById(id: number): Promise<ImageRow | null> {
      const row = await db('images').where({ id }).first();
      return row ? toImage(row) : null;
    },

    async list(filter: ListFilter): Promise<{ rows: ImageRow[]; total: number }> {
      const base = db('images').where({ user_id: filter.userId, status: filter.status });
      if (filter.categoryId !== undefined) base.andWhere('category_id', filter.categoryId);
      if (filter.keyword !== undefined && filter.keyword !== '') {
        base.andWhereRaw("lower(original_name) LIKE lower(?) ESCAPE '\\'", [containsPattern(filter.keyword)]);
      }
      const [counted] = await base.clone().count({ count: '*' });
      const total = Number((counted as { count: unknown } | undefined)?.count ?? 0);
      if (filter.offset >= total) return { rows: [], total };
      const rows = await base
        .clone()
        .orderBy(filter.status === 'binned' ? [{ column: 'deleted_at', order: 'desc' }, { column: 'id', order: 'desc' }] : [{ column: 'id', order: 'desc' }])
        .limit(filter.limit)
        .offset(filter.offset)
        .select('*');
      return { rows: rows.map(toImage), total };
    },

    /**
     * Flips a stored image to binned and runs `moveFiles` inside the transaction:
     * if moving the file fails, the row stays stored.
     */
    async bin(userId: number, id: number, moveFiles: (image: ImageRow) => Promise<void>): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const [row] = await trx('images')
          .where({ id, user_id: userId, status: 'stored' })
          .update({ status: 'binned', deleted_at: trx.fn.now() })
          .returning('*');
        if (!row) return null;
        const image = toImage(row);
        await moveFiles(image);
        return image;
      });
    },

    async restore(userId: number, id: number, moveFiles: (image: ImageRow) => Promise<void>): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const [row] = await trx('images')
          .where({ id, user_id: userId, status: 'binned' })
          .update({ status: 'stored', deleted_at: null })
          .returning('*');
        if (!row) return null;
        const image = toImage(row);
        await moveFiles(image);
        return image;
      });
    },

    /** Deletes a binned image row (of that user, binned before that time) and gives its bytes back to the owner, atomically. */
    async purge(id: number, options: { userId?: number; deletedBefore?: Date } = {}): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const query = trx('images').where({ id, status: 'binned' });
        if (options.userId !== undefined) query.andWhere('user_id', options.userId);
        if (options.deletedBefore) query.andWhere('deleted_at', '<', options.deletedBefore);
        const [row] = await query.delete().returning('*');
        if (!row) return null;
        const image = toImage(row);
        await trx('idempotency_keys').where({ image_id: image.id }).delete();
        await trx('users')
          .where('id', image.userId)
          .update({ used_bytes: trx.raw('GREATEST(used_bytes - ?, 0)', [image.fileSize]) });
        return image;
      });
    },

    async findBinnedIds(options: { deletedBefore?: Date; userId?: number; limit: number }): Promise<number[]> {
      const query = db('images').where('status', 'binned');
      if (options.deletedBefore) query.andWhere('deleted_at', '<', options.deletedBefore);
      if (options.userId !== undefined) query.andWhere('user_id', options.userId);
      const rows = await query.orderBy('id').limit(options.limit).select('id');
      return rows.map((row: { id: unknown }) => Number(row.id));
    },

    /** Claims an idempotency key for a new upload. False when someone already holds it. */
    async claimIdempotencyKey(userId: number, key: string): Promise<boolean> {
      const rows = await db('idempotency_keys').insert({ user_id: userId, key }).onConflict(['user_id', 'key']).ignore().returning('key');
      return rows.length === 1;
    },

    async findIdempotencyResult(userId: number, key: string): Promise<{ found: boolean; result: unknown | null }> {
      const row = await db('idempotency_keys').where({ user_id: userId, key }).first('result');
      if (!row) return { found: false, result: null };
      const result = typeof row.result === 'string' ? JSON.parse(row.result) : row.result;
      return { found: true, result: result ?? null };
    },

    async releaseIdempotencyKey(userId: number, key: string): Promise<void> {
      await db('idempotency_keys').where({ user_id: userId, key }).whereNull('image_id').delete();
    },

    /** Drops a claim whose holder never finished (e.g. the process died mid-upload). */
    async releaseStaleIdempotencyKey(userId: number, key: string, claimedBefore: Date): Promise<void> {
      await db('idempotency_keys').where({ user_id: userId, key }).whereNull('image_id').andWhere('created_at', '<', claimedBefore).delete();
    },
  };
}

export type ImagesRepository = ReturnType<typeof createImagesRepository>;
