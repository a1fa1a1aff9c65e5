import type { Knex } from 'knex';
import { namedQuery } from '../db/named-query';
import { LISTED_COLUMNS, toImage, toListed, type ImageRow, type ListedImage, type Move, type NewImage } from './image-rows';

/** The reserve's answer: the pending row, or why there is none (see charge_upload). */
export type Reservation = { reserved: ImageRow } | { refused: 'disabled' | 'too-large' | 'quota' };

/**
 * The upload's charge and pending row in one statement (one round trip, and atomic). The quota rules
 * are charge_upload's (migrations/20261127135722_charge_upload); the row is inserted only when it
 * charged, and a claimed idempotency key is tied to the row. Its one shape lets Postgres settle on one
 * generic plan: a statement whose parts a custom plan can fold away is planned anew on every run.
 */
const RESERVE_SQL = `
  WITH charge AS (
    SELECT charge_upload(:userId::bigint, :receivedSize::bigint, :size::bigint) AS outcome
  ), reserved AS (
    INSERT INTO images (user_id, category_id, storage_key, thumb_key, storage_backend, format, original_name, file_size, width, height, status, content_hash, expires_at)
    SELECT :userId::bigint, coalesce(:categoryId::bigint, (SELECT id FROM categories WHERE user_id = :userId::bigint AND is_default)),
           :storageKey::text, :thumbKey::text, :storageBackend::text, :format::text, :originalName::text, :size::bigint, :width::int, :height::int, 'pending',
           :contentHash::bytea, :expiresAt::timestamptz
    FROM charge WHERE charge.outcome = 'charged'
    RETURNING *
  ), claimed AS (
    UPDATE idempotency_keys SET image_id = (SELECT id FROM reserved)
    WHERE :idempotencyKey::text IS NOT NULL AND user_id = :userId::bigint AND key = :idempotencyKey::text AND EXISTS (SELECT 1 FROM reserved)
  )
  SELECT charge.outcome, reserved.* FROM charge LEFT JOIN reserved ON true`;

/** The pending upload is stored. */
const COMPLETE_SQL = `UPDATE images SET status = 'stored', status_changed_at = now() WHERE id = :id AND status = 'pending' RETURNING *`;

/**
 * An upload with an Idempotency-Key: stored, and its result kept with the key. A statement of its own
 * rather than an optional part of the one above: Postgres would plan such a part anew on every run.
 */
const COMPLETE_KEPT_SQL = `
  WITH stored AS (
    UPDATE images SET status = 'stored', status_changed_at = now() WHERE id = :id AND status = 'pending' RETURNING *
  ), kept AS (
    UPDATE idempotency_keys SET result = :result::jsonb WHERE image_id = :id AND EXISTS (SELECT 1 FROM stored)
  )
  SELECT * FROM stored`;

/**
 * The owner's stored image of a content, by the unique index below: every upload asks it once, so it
 * is a prepared statement too (unprepared, each run is parsed and planned over the table's many indexes).
 */
const STORED_BY_CONTENT_SQL = `SELECT * FROM images WHERE user_id = :userId::bigint AND content_hash = :contentHash::bytea AND status = 'stored' LIMIT 1`;

/**
 * The unique index that holds an owner's stored images to one per content (the dedup_and_expiry
 * migration): a row entering 'stored' with a hash another stored image of its owner has is refused.
 */
const OWNER_CONTENT_INDEX = 'images_owner_content_unique';

/** The error is the owner-content index refusing a second stored image of the same content. */
export function isDuplicateContent(error: unknown): boolean {
  const { code, constraint, message } = (error ?? {}) as { code?: string; constraint?: string; message?: string };
  return code === '23505' && (constraint === OWNER_CONTENT_INDEX || (message ?? '').includes(OWNER_CONTENT_INDEX));
}

/**
 * A row entering 'stored' other than by an upload (a restore, an undone bin move) keeps its hash only
 * while no other stored image of its owner has it; otherwise it stays beside that one, without a hash
 * (uploads of the content answer the other). Runs again once if a concurrent upload took the hash in between.
 */
const KEEP_HASH_UNLESS_TAKEN = `CASE WHEN content_hash IS NOT NULL AND EXISTS (
  SELECT 1 FROM images AS other WHERE other.user_id = images.user_id AND other.content_hash = images.content_hash AND other.status = 'stored' AND other.id <> images.id
) THEN NULL ELSE content_hash END`;

async function retryOnDuplicateContent<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isDuplicateContent(error)) throw error;
    return work();
  }
}

const REFUSALS = { disabled: 'disabled', too_large: 'too-large', over_quota: 'quota' } as const;

/** An image's way through its states: upload, bin, restore, purge, and recovery's view of it. */
export function createLifecycleRepository(db: Knex, options: { namedStatements: boolean }) {
  const named = { named: options.namedStatements };
  const reserveStatement = namedQuery(
    db,
    'images_reserve',
    RESERVE_SQL,
    ({ image, receivedSize, idempotencyKey }: { image: NewImage; receivedSize: number; idempotencyKey: string | null }) => ({
      userId: image.userId,
      categoryId: image.categoryId,
      storageKey: image.storageKey,
      thumbKey: image.thumbKey,
      storageBackend: image.storageBackend,
      format: image.format,
      originalName: image.originalName,
      size: image.fileSize,
      width: image.width,
      height: image.height,
      contentHash: image.contentHash ?? null,
      expiresAt: image.expiresAt ?? null,
      receivedSize,
      idempotencyKey,
    }),
    named,
  );
  const completeStatement = namedQuery(db, 'images_complete', COMPLETE_SQL, (id: number) => ({ id }), named);
  const completeKeptStatement = namedQuery(db, 'images_complete_kept', COMPLETE_KEPT_SQL, ({ id, result }: { id: number; result: string }) => ({ id, result }), named);
  const storedByContentStatement = namedQuery(db, 'images_stored_by_content', STORED_BY_CONTENT_SQL, ({ userId, contentHash }: { userId: number; contentHash: Buffer }) => ({ userId, contentHash }), named);

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
     * Charges the quota and records the upload as pending (see RESERVE_SQL). `receivedSize` is the
     * file as it arrived, held to the group's size limit; the charge is of what is stored. A null
     * category is the user's default. A refusal changes nothing.
     */
    async reserveUpload(image: NewImage, receivedSize: number, idempotencyKey?: string): Promise<Reservation> {
      const [row] = await reserveStatement({ image, receivedSize, idempotencyKey: idempotencyKey ?? null });
      const outcome = String(row?.outcome);
      if (outcome !== 'charged') return { refused: REFUSALS[outcome as keyof typeof REFUSALS] ?? 'disabled' };
      return { reserved: toImage(row!) };
    },

    /**
     * Its files are durable: the pending upload becomes a stored image (and its idempotency result is
     * kept). Null if recovery took it; 'duplicate' when another upload of the same content by the same
     * owner was stored first (the row stays pending, for the caller to drop).
     */
    async completeUpload(id: number, idempotencyResult?: unknown): Promise<ImageRow | null | 'duplicate'> {
      try {
        const [row] = idempotencyResult === undefined ? await completeStatement(id) : await completeKeptStatement({ id, result: JSON.stringify(idempotencyResult) });
        return row ? toImage(row) : null;
      } catch (error) {
        if (isDuplicateContent(error)) return 'duplicate';
        throw error;
      }
    },

    /** The owner's stored image of this content (SHA-256 of the bytes its upload received), if any. */
    async findStoredByContent(userId: number, contentHash: Buffer): Promise<ImageRow | null> {
      const [row] = await storedByContentStatement({ userId, contentHash });
      return row ? toImage(row) : null;
    },

    /** Whether an upload of this content by the owner is under way (pending). */
    async hasPendingContent(userId: number, contentHash: Buffer): Promise<boolean> {
      const row = await db('images').where({ user_id: userId, content_hash: contentHash, status: 'pending' }).first('id');
      return row !== undefined;
    },

    /** Sets or clears (null) when the user's stored image expires; null when it is not such an image of theirs. */
    async setExpiry(userId: number, id: number, expiresAt: Date | null): Promise<ListedImage | null> {
      const [row] = await db('images').where({ id, user_id: userId, status: 'stored' }).update({ expires_at: expiresAt }, [...LISTED_COLUMNS]);
      return row ? toListed(row as Record<string, unknown>) : null;
    },

    /** Stored images whose expiry is at or before `now`, oldest expiry first, with their owners. */
    async findExpired(now: Date, limit: number): Promise<Array<{ id: number; userId: number }>> {
      const rows = await db('images')
        .where('status', 'stored')
        .whereNotNull('expires_at')
        .andWhere('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .select('id', 'user_id');
      return rows.map((row: { id: unknown; user_id: unknown }) => ({ id: Number(row.id), userId: Number(row.user_id) }));
    },

    /** Drops a pending upload and refunds its charge (its files must already be gone). */
    dropUpload(id: number): Promise<ImageRow | null> {
      return deleteCharged(id, 'pending');
    },

    /**
     * First commit of a move or a purge: the row enters its step if it is the user's image in the
     * expected state (and, for the automatic purge, deleted before `deletedBefore`; for a deletion
     * link, still with the nonce the link was checked against). Null otherwise.
     */
    async startStep(
      id: number,
      step: { from: 'stored' | 'binned'; via: 'binning' | 'restoring' | 'purging' },
      scope: { userId?: number; deletedBefore?: Date; deletionNonce?: string | null; expiredAt?: Date } = {},
    ): Promise<ImageRow | null> {
      const query = db('images').where({ id, status: step.from });
      if (scope.userId !== undefined) query.andWhere('user_id', scope.userId);
      // The expiry job: only while the image still expires by then (its owner may have changed or cleared it since the lookup).
      if (scope.expiredAt) query.whereNotNull('expires_at').andWhere('expires_at', '<=', scope.expiredAt);
      if (scope.deletedBefore) query.andWhere('deleted_at', '<', scope.deletedBefore);
      if (scope.deletionNonce === null) query.whereNull('deletion_nonce');
      else if (scope.deletionNonce !== undefined) query.andWhere('deletion_nonce', scope.deletionNonce);
      const [row] = await query.update({ status: step.via, status_changed_at: db.fn.now() }).returning('*');
      return row ? toImage(row) : null;
    },

    /**
     * Second commit of a move: the file is where it belongs now. Null if someone else finished it. A
     * restored image gets a new deletion nonce in the same commit, so the links signed before stop.
     */
    async finishMove(id: number, move: Move, options: { expired?: boolean } = {}): Promise<ImageRow | null> {
      const [row] = await retryOnDuplicateContent(() =>
        db('images')
          .where({ id, status: move.via })
          .update(
            move.to === 'binned'
              ? // Binned by the expiry job: the expiry has done its work, and a restore keeps the image.
                { status: move.to, status_changed_at: db.fn.now(), deleted_at: db.fn.now(), ...(options.expired ? { expires_at: null } : {}) }
              : {
                  status: move.to,
                  status_changed_at: db.fn.now(),
                  deleted_at: null,
                  deletion_nonce: db.raw('gen_random_uuid()'),
                  content_hash: db.raw(KEEP_HASH_UNLESS_TAKEN),
                  // An expiry that has passed (the image was binned for it) goes: restored, it stays.
                  expires_at: db.raw('CASE WHEN expires_at <= now() THEN NULL ELSE expires_at END'),
                },
          )
          .returning('*'),
      );
      return row ? toImage(row) : null;
    },

    /** Undoes the first commit of a move whose file could not be moved (it is still where it was). */
    async undoMove(id: number, move: Move): Promise<void> {
      await retryOnDuplicateContent(() =>
        db('images')
          .where({ id, status: move.via })
          .update(move.from === 'stored' ? { status: move.from, status_changed_at: db.fn.now(), content_hash: db.raw(KEEP_HASH_UNLESS_TAKEN) } : { status: move.from, status_changed_at: db.fn.now() }),
      );
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

    /** Moves the user's image (stored or in the bin) to a category; false when it is not such an image of theirs. */
    async moveToCategory(userId: number, id: number, categoryId: number): Promise<boolean> {
      const updated = await db('images').where({ id, user_id: userId }).whereIn('status', ['stored', 'binned']).update({ category_id: categoryId });
      return Number(updated) > 0;
    },

    /** Gives the user's stored image a new name; null when it is not such an image of theirs. */
    async rename(userId: number, id: number, name: string): Promise<ListedImage | null> {
      const [row] = await db('images').where({ id, user_id: userId, status: 'stored' }).update({ original_name: name }, [...LISTED_COLUMNS]);
      return row ? toListed(row as Record<string, unknown>) : null;
    },

    async findById(id: number): Promise<ImageRow | null> {
      const row = await db('images').where({ id }).first();
      return row ? toImage(row) : null;
    },

    async findBinnedIds(options: { deletedBefore?: Date; userId?: number; limit: number }): Promise<number[]> {
      const query = db('images').where('status', 'binned');
      if (options.deletedBefore) query.andWhere('deleted_at', '<', options.deletedBefore);
      if (options.userId !== undefined) query.andWhere('user_id', options.userId);
      const rows = await query.orderBy('id').limit(options.limit).select('id');
      return rows.map((row: { id: unknown }) => Number(row.id));
    },

  };
}
