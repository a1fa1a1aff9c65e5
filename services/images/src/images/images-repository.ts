import type { Knex } from 'knex';

/**
 * stored and binned are where images live; the others are steps in progress, each between two
 * commits with a file operation in the middle (see the image_transitions migration).
 */
export type ImageStatus = 'pending' | 'stored' | 'binning' | 'binned' | 'restoring' | 'purging';

/** A move between the two resting states, and the step it passes through. */
export type Move = { from: 'stored'; via: 'binning'; to: 'binned' } | { from: 'binned'; via: 'restoring'; to: 'stored' };

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
  statusChangedAt: Date;
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
    statusChangedAt: row.status_changed_at as Date,
  };
}

/** LIKE pattern for a literal substring: %, _ and the escape character itself lose their meaning. */
function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export function createImagesRepository(db: Knex) {
  /** Deletes a row in a step of its own and gives its bytes back to the owner, in one transaction. */
  async function deleteCharged(id: number, status: 'pending' | 'purging'): Promise<ImageRow | null> {
    return db.transaction(async (trx) => {
      const [row] = await trx('images').where({ id, status }).delete().returning('*');
      if (!row) return null;
      const image = toImage(row);
      await trx('idempotency_keys').where({ image_id: image.id }).delete();
      await trx('users')
        .where('id', image.userId)
        .update({ used_bytes: trx.raw('GREATEST(used_bytes - ?, 0)', [image.fileSize]) });
      return image;
    });
  }

  return {
    /**
     * Charges the owner's quota and records the upload as pending, in one transaction, before any file
     * is written. The charge is one conditional update, so concurrent uploads never overshoot the
     * quota. A claimed idempotency key is tied to the row. Null, with nothing changed, when the bytes
     * do not fit.
     */
    async reserveUpload(image: NewImage, idempotencyKey?: string): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const charged = await trx('users')
          .where('id', image.userId)
          .whereRaw('used_bytes + ? <= (SELECT quota_bytes FROM groups WHERE groups.id = users.group_id)', [image.fileSize])
          .increment('used_bytes', image.fileSize);
        if (Number(charged) !== 1) return null;
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
            status: 'pending',
          })
          .returning('*');
        const reserved = toImage(row as Record<string, unknown>);
        if (idempotencyKey) await trx('idempotency_keys').where({ user_id: image.userId, key: idempotencyKey }).update({ image_id: reserved.id });
        return reserved;
      });
    },

    /** Its files are durable: the pending upload becomes a stored image (and its idempotency result is kept). Null if recovery took it. */
    async completeUpload(id: number, idempotencyResult?: unknown): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const [row] = await trx('images')
          .where({ id, status: 'pending' })
          .update({ status: 'stored', status_changed_at: trx.fn.now() })
          .returning('*');
        if (!row) return null;
        if (idempotencyResult !== undefined) await trx('idempotency_keys').where({ image_id: id }).update({ result: JSON.stringify(idempotencyResult) });
        return toImage(row);
      });
    },

    /** Drops a pending upload and refunds its charge (its files must already be gone). */
    dropUpload(id: number): Promise<ImageRow | null> {
      return deleteCharged(id, 'pending');
    },

    /**
     * First commit of a move or a purge: the row enters its step if it is the user's image in the
     * expected state (and, for the automatic purge, deleted before `deletedBefore`). Null otherwise.
     */
    async startStep(
      id: number,
      step: { from: 'stored' | 'binned'; via: 'binning' | 'restoring' | 'purging' },
      scope: { userId?: number; deletedBefore?: Date } = {},
    ): Promise<ImageRow | null> {
      const query = db('images').where({ id, status: step.from });
      if (scope.userId !== undefined) query.andWhere('user_id', scope.userId);
      if (scope.deletedBefore) query.andWhere('deleted_at', '<', scope.deletedBefore);
      const [row] = await query.update({ status: step.via, status_changed_at: db.fn.now() }).returning('*');
      return row ? toImage(row) : null;
    },

    /** Second commit of a move: the file is where it belongs now. Null if someone else finished it. */
    async finishMove(id: number, move: Move): Promise<ImageRow | null> {
      const [row] = await db('images')
        .where({ id, status: move.via })
        .update({ status: move.to, status_changed_at: db.fn.now(), deleted_at: move.to === 'binned' ? db.fn.now() : null })
        .returning('*');
      return row ? toImage(row) : null;
    },

    /** Undoes the first commit of a move whose file could not be moved (it is still where it was). */
    async undoMove(id: number, move: Move): Promise<void> {
      await db('images').where({ id, status: move.via }).update({ status: move.from, status_changed_at: db.fn.now() });
    },

    /** Last commit of a purge: the files are gone; delete the row and refund its bytes. */
    deletePurged(id: number): Promise<ImageRow | null> {
      return deleteCharged(id, 'purging');
    },

    /** Rows a dead process left mid-step: uploads pending since before `uploadsBefore`, other steps since before `stepsBefore`. */
    async findStalled(options: { uploadsBefore: Date; stepsBefore: Date; limit: number }): Promise<ImageRow[]> {
      const rows = await db('images')
        .where((where) =>
          where
            .where((pending) => pending.where('status', 'pending').andWhere('status_changed_at', '<', options.uploadsBefore))
            .orWhere((steps) => steps.whereIn('status', ['binning', 'restoring', 'purging']).andWhere('status_changed_at', '<', options.stepsBefore)),
        )
        .orderBy('id')
        .limit(options.limit)
        .select('*');
      return rows.map(toImage);
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

    /** Gives up a claim that has no result (its upload failed before completing). */
    async releaseIdempotencyKey(userId: number, key: string): Promise<void> {
      await db('idempotency_keys').where({ user_id: userId, key }).whereNull('result').delete();
    },

    /** Drops a claim whose holder never finished (e.g. the process died mid-upload). */
    async releaseStaleIdempotencyKey(userId: number, key: string, claimedBefore: Date): Promise<void> {
      await db('idempotency_keys').where({ user_id: userId, key }).whereNull('result').andWhere('created_at', '<', claimedBefore).delete();
    },
  };
}

export type ImagesRepository = ReturnType<typeof createImagesRepository>;
