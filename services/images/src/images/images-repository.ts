import type { Knex } from 'knex';
import type { StorageBackend } from '../storage/object-store';
import { credentialLive } from '../auth/credentials-repository';
import { preparedStatement } from '../db/prepared-statement';

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
  /** The backend holding the image's objects. */
  storageBackend: StorageBackend;
  /** A backend that may still hold a copy a storage migration left behind, to be removed. */
  storageLeftover: StorageBackend | null;
  format: string;
  originalName: string;
  fileSize: number;
  width: number;
  height: number;
  status: ImageStatus;
  createdAt: Date;
  deletedAt: Date | null;
  statusChangedAt: Date;
  /** Signed into the deletion link and replaced on restore (see link-signer); null for an image from before it existed. */
  deletionNonce: string | null;
}

/** What a page of the list or the bin shows of an image: a page reads only these columns. */
export type ListedImage = Pick<ImageRow, 'id' | 'storageKey' | 'originalName' | 'fileSize' | 'createdAt' | 'deletedAt' | 'deletionNonce'>;

/**
 * The columns of a ListedImage. Every column of twenty rows (three of them timestamps, each parsed
 * into a Date) cost more on both sides: measured with node-postgres against a copy of the table's
 * shape, about 0.25 ms of the client's CPU per page against 0.15 ms for these, and 0.9 ms of the
 * Postgres backend's against 0.66 ms.
 */
const LISTED_COLUMNS = ['id', 'storage_key', 'original_name', 'file_size', 'created_at', 'deleted_at', 'deletion_nonce'] as const;

export interface NewImage {
  userId: number;
  /** Null: the user's default category. */
  categoryId: number | null;
  storageKey: string;
  thumbKey: string | null;
  storageBackend: StorageBackend;
  format: string;
  originalName: string;
  fileSize: number;
  width: number;
  height: number;
}

/**
 * What an upload was decided on, for its reserve statement to confirm in its own snapshot: the
 * credential it was made with (live at `at`), and the group settings it read (the size limit the
 * received file is within, and whether metadata is kept).
 */
export interface UploadPrincipal {
  credentialId: number;
  at: Date;
  receivedSize: number;
  keepMetadata: boolean;
}

/**
 * The reserve statement's answer: the pending row, or why there is none: the credential is not live,
 * the group's settings are no longer those the upload read, or the quota has no room.
 */
export type Reservation = { reserved: ImageRow } | { refused: 'credential' | 'group-changed' | 'quota' };

export interface ListFilter {
  userId: number;
  /** The credential the page is read for, confirmed live at `at` by the page's own statement. */
  credential: { id: number; at: Date };
  status: ImageStatus;
  categoryId?: number;
  keyword?: string;
  limit: number;
  offset: number;
}

function toListed(row: Record<string, unknown>): ListedImage {
  return {
    id: Number(row.id),
    storageKey: String(row.storage_key),
    originalName: String(row.original_name),
    fileSize: Number(row.file_size),
    createdAt: row.created_at as Date,
    deletedAt: (row.deleted_at as Date | null) ?? null,
    deletionNonce: row.deletion_nonce === null || row.deletion_nonce === undefined ? null : String(row.deletion_nonce),
  };
}

function toImage(row: Record<string, unknown>): ImageRow {
  return {
    ...toListed(row),
    userId: Number(row.user_id),
    categoryId: Number(row.category_id),
    thumbKey: row.thumb_key === null ? null : String(row.thumb_key),
    storageBackend: row.storage_backend as StorageBackend,
    storageLeftover: (row.storage_leftover as StorageBackend | null) ?? null,
    format: String(row.format),
    width: Number(row.width),
    height: Number(row.height),
    status: row.status as ImageStatus,
    statusChangedAt: row.status_changed_at as Date,
  };
}

/** LIKE pattern for a literal substring: %, _ and the escape character itself lose their meaning. */
function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Newest first; the bin by when each image was deleted. */
function pageOrder(status: ImageStatus): Array<{ column: string; order: 'asc' | 'desc' }> {
  return status === 'binned'
    ? [
        { column: 'deleted_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]
    : [{ column: 'id', order: 'desc' }];
}

/** The same order as SQL over the columns of a subquery named `page`, for a statement's outer ORDER BY. */
function orderOfPage(status: ImageStatus): string {
  return pageOrder(status)
    .map(({ column, order }) => `page.${column} ${order.toUpperCase()}`)
    .join(', ');
}

export function createImagesRepository(db: Knex, options: { namedStatements: boolean } = { namedStatements: true }) {
  /** The list statements, each compiled once, by its shape (see preparedStatement). */
  const statements = new Map<string, ReturnType<typeof preparedStatement>>();
  const compiledOnce = (shape: string, build: Parameters<typeof preparedStatement>[1]) => {
    let statement = statements.get(shape);
    if (!statement) {
      statement = preparedStatement(db, build, { named: options.namedStatements });
      statements.set(shape, statement);
    }
    return statement;
  };

  /**
   * A page of a user's images with its exact total (a sum over the per-category counters), one
   * statement per status and filter. The totals' one row is joined to the page, so a page past the end
   * still answers one row: the total, with the page's columns null; no row at all when the credential
   * is not live (see credentialLive). Values: user id, category id (ignored without the filter),
   * limit, offset, credential id, now.
   */
  const pageWithTotal = (status: ImageStatus, byCategory: boolean) =>
    compiledOnce(`page:${status}:${byCategory}`, (param) => {
      const counters = db('image_counts').where({ user_id: param(0), status });
      const page = db('images').where({ user_id: param(0), status });
      if (byCategory) {
        counters.andWhere('category_id', param(1));
        page.andWhere('category_id', param(1));
      }
      page.orderBy(pageOrder(status)).select(...LISTED_COLUMNS);
      // knex's limit() and offset() take numbers only, not a statement's parameters.
      return db.raw(
        `SELECT page.*, totals.total FROM (?) AS totals LEFT JOIN LATERAL (? LIMIT ? OFFSET ?) AS page ON true WHERE ? ORDER BY ${orderOfPage(status)}`,
        [counters.select(db.raw('coalesce(sum(count), 0) AS total')), page, param(2), param(3), credentialLive(db, param(4), param(0), param(5))],
      );
    });

  /**
   * A page of a user's images whose names contain a pattern, with the exact count of all that match,
   * one statement per status and filter. Values: user id, category id (ignored without the filter),
   * LIKE pattern, limit, offset. The page counts its matches in the same pass (a window over them,
   * which the trigram index finds). Joined to one row, a page past the end still answers one row, with
   * the page's columns null; only then are the matches counted on their own, and not at all for a first
   * page (nothing matched: 0); no row at all when the credential is not live (see credentialLive).
   * Values: user id, category id, LIKE pattern, limit, offset, credential id, now. Its best plan depends on the pattern, which a generic plan cannot see;
   * Postgres keeps planning it for each run's values, as it does the list page (with LIMIT and
   * OFFSET as parameters it prices a generic plan far above a custom one): after seven runs of a
   * pattern matching 999,950 of a user's 1,000,000 names, pg_prepared_statements counted 0 generic
   * plans and 7 custom ones, and a rare pattern then took 0.7 ms. The statement saves knex's building
   * and Postgres' parsing of each search.
   */
  const searchPage = (status: ImageStatus, byCategory: boolean) =>
    compiledOnce(`search:${status}:${byCategory}`, (param) => {
      // The user's images in the status (and category) whose names match: for the page, and for the count of a page past the end.
      const matches = () => {
        const query = db('images').where({ user_id: param(0), status });
        if (byCategory) query.andWhere('category_id', param(1));
        return query.andWhereRaw("lower(original_name) LIKE lower(?) ESCAPE '\\'", [param(2)]);
      };
      const page = matches()
        .orderBy(pageOrder(status))
        .select(...LISTED_COLUMNS, db.raw('count(*) OVER () AS matching_total'));
      return db.raw(
        `SELECT page.*, coalesce(page.matching_total, CASE WHEN ?::bigint = 0 THEN 0 ELSE (?) END) AS total
         FROM (SELECT 1) AS one LEFT JOIN LATERAL (? LIMIT ? OFFSET ?) AS page ON true WHERE ? ORDER BY ${orderOfPage(status)}`,
        [param(4), matches().count('*'), page, param(3), param(4), credentialLive(db, param(5), param(0), param(6))],
      );
    });

  /**
   * The two writes of every upload, as prepared statements (see preparedStatement): Postgres parses
   * each once per connection, and plans it once it settles on a generic plan (each has one shape, so
   * that a generic plan is as cheap as a custom one and is chosen: a statement whose parts a custom
   * plan can fold away, such as an optional idempotency result, is planned anew on every run).
   * The reserve confirms what the upload was decided on (UploadPrincipal) before it charges: the
   * upload may come from a principal recalled from memory, and whatever it read must still hold.
   * It answers one row: `principal_live`, `principal_current` and the pending row's columns (null
   * when nothing was reserved). Values: size, user id, category id (null: the default), storage key,
   * thumbnail key, backend, format, original name, width, height, idempotency key (or null),
   * credential id, now, received size, metadata kept.
   */
  const reserveStatement = preparedStatement(
    db,
    (param) =>
      db.raw(
        `WITH principal AS (
           SELECT :live AS principal_live,
                  coalesce((SELECT g.max_file_size >= :receivedSize::bigint AND g.keep_metadata = :keepMetadata::boolean
                            FROM users AS u JOIN groups AS g ON g.id = u.group_id WHERE u.id = :userId), false) AS principal_current
         ), charged AS (
           UPDATE users SET used_bytes = used_bytes + :size
           WHERE id = :userId AND (SELECT principal_live AND principal_current FROM principal)
             AND used_bytes + :size <= (SELECT quota_bytes FROM groups WHERE groups.id = users.group_id)
           RETURNING id
         ), reserved AS (
           INSERT INTO images (user_id, category_id, storage_key, thumb_key, storage_backend, format, original_name, file_size, width, height, status)
           SELECT charged.id, COALESCE(:categoryId::bigint, (SELECT id FROM categories WHERE user_id = charged.id AND is_default)),
                  :storageKey, :thumbKey, :storageBackend, :format, :originalName, :size, :width, :height, 'pending'
           FROM charged
           RETURNING *
         ), claimed AS (
           UPDATE idempotency_keys SET image_id = (SELECT id FROM reserved)
           WHERE :idempotencyKey::text IS NOT NULL AND user_id = :userId AND key = :idempotencyKey::text AND EXISTS (SELECT 1 FROM reserved)
         )
         SELECT principal.*, reserved.* FROM principal LEFT JOIN reserved ON true`,
        {
          size: param(0),
          userId: param(1),
          categoryId: param(2),
          storageKey: param(3),
          thumbKey: param(4),
          storageBackend: param(5),
          format: param(6),
          originalName: param(7),
          width: param(8),
          height: param(9),
          idempotencyKey: param(10),
          live: credentialLive(db, param(11), param(1), param(12)),
          receivedSize: param(13),
          keepMetadata: param(14),
        },
      ),
    { named: options.namedStatements },
  );
  /** Values: image id. */
  const completeStatement = preparedStatement(
    db,
    (param) => db('images').where({ id: param(0), status: 'pending' }).update({ status: 'stored', status_changed_at: db.fn.now() }).returning('*'),
    { named: options.namedStatements },
  );
  /** An upload with an Idempotency-Key: its result is kept with the key. Values: image id, the result as JSON text. */
  const completeKeptStatement = preparedStatement(
    db,
    (param) =>
      db.raw(
        `WITH stored AS (
           UPDATE images SET status = 'stored', status_changed_at = now() WHERE id = :id AND status = 'pending' RETURNING *
         ), kept AS (
           UPDATE idempotency_keys SET result = :result::jsonb WHERE image_id = :id AND EXISTS (SELECT 1 FROM stored)
         )
         SELECT * FROM stored`,
        { id: param(0), result: param(1) },
      ),
    { named: options.namedStatements },
  );

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
     * Charges the quota and records the upload as pending, in one statement (so one round trip, and
     * atomic): the charge is a conditional update that cannot overshoot the quota under concurrency,
     * and the row exists only if the charge was made. A null category is the user's default. A claimed
     * idempotency key is tied to the row. First it confirms the principal (see UploadPrincipal); a
     * refusal, of either kind, changes nothing.
     */
    async reserveUpload(image: NewImage, principal: UploadPrincipal, idempotencyKey?: string): Promise<Reservation> {
      const [row] = await reserveStatement([
        image.fileSize,
        image.userId,
        image.categoryId,
        image.storageKey,
        image.thumbKey,
        image.storageBackend,
        image.format,
        image.originalName,
        image.width,
        image.height,
        idempotencyKey ?? null,
        principal.credentialId,
        principal.at,
        principal.receivedSize,
        principal.keepMetadata,
      ]);
      if (!row?.principal_live) return { refused: 'credential' };
      if (!row.principal_current) return { refused: 'group-changed' };
      if (row.id === null) return { refused: 'quota' };
      return { reserved: toImage(row) };
    },

    /** Its files are durable: the pending upload becomes a stored image (and its idempotency result is kept). Null if recovery took it. */
    async completeUpload(id: number, idempotencyResult?: unknown): Promise<ImageRow | null> {
      const [row] = idempotencyResult === undefined ? await completeStatement([id]) : await completeKeptStatement([id, JSON.stringify(idempotencyResult)]);
      return row ? toImage(row) : null;
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
      scope: { userId?: number; deletedBefore?: Date; deletionNonce?: string | null } = {},
    ): Promise<ImageRow | null> {
      const query = db('images').where({ id, status: step.from });
      if (scope.userId !== undefined) query.andWhere('user_id', scope.userId);
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
    async finishMove(id: number, move: Move): Promise<ImageRow | null> {
      const [row] = await db('images')
        .where({ id, status: move.via })
        .update(
          move.to === 'binned'
            ? { status: move.to, status_changed_at: db.fn.now(), deleted_at: db.fn.now() }
            : { status: move.to, status_changed_at: db.fn.now(), deleted_at: null, deletion_nonce: db.raw('gen_random_uuid()') },
        )
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

    /** Moves the user's image (stored or in the bin) to a category; false when it is not such an image of theirs. */
    async moveToCategory(userId: number, id: number, categoryId: number): Promise<boolean> {
      const updated = await db('images').where({ id, user_id: userId }).whereIn('status', ['stored', 'binned']).update({ category_id: categoryId });
      return Number(updated) > 0;
    },

    async findById(id: number): Promise<ImageRow | null> {
      const row = await db('images').where({ id }).first();
      return row ? toImage(row) : null;
    },

    /**
     * A page and the exact total; null when the filter's credential is not live. Without a keyword the
     * total is a sum over the user's per-category counters (image_counts, kept by triggers in the same
     * transactions as the rows); with one it is counted through the trigram index, over the matching
     * rows only.
     */
    async list(filter: ListFilter): Promise<{ rows: ListedImage[]; total: number } | null> {
      const { userId, credential } = filter;
      const rows =
        filter.keyword !== undefined && filter.keyword !== ''
          ? await searchPage(filter.status, filter.categoryId !== undefined)([
              userId,
              filter.categoryId ?? null,
              containsPattern(filter.keyword),
              filter.limit,
              filter.offset,
              credential.id,
              credential.at,
            ])
          : await pageWithTotal(filter.status, filter.categoryId !== undefined)([userId, filter.categoryId ?? null, filter.limit, filter.offset, credential.id, credential.at]);
      // A live credential reads one row at least: a page past the end (or of nothing) is one row of the total alone.
      if (rows.length === 0) return null;
      return { rows: rows.filter((row) => row.id !== null).map(toListed), total: Number(rows[0]!.total) };
    },

    async findBinnedIds(options: { deletedBefore?: Date; userId?: number; limit: number }): Promise<number[]> {
      const query = db('images').where('status', 'binned');
      if (options.deletedBefore) query.andWhere('deleted_at', '<', options.deletedBefore);
      if (options.userId !== undefined) query.andWhere('user_id', options.userId);
      const rows = await query.orderBy('id').limit(options.limit).select('id');
      return rows.map((row: { id: unknown }) => Number(row.id));
    },

    /** How many images at rest (stored or binned) have their objects on each backend, and how many are mid-step. */
    async countByBackend(): Promise<Array<{ backend: StorageBackend; atRest: number; inStep: number }>> {
      const rows: Array<{ storage_backend: string; at_rest: unknown; in_step: unknown }> = await db('images')
        .select('storage_backend')
        .select(db.raw("count(*) FILTER (WHERE status IN ('stored', 'binned')) AS at_rest"))
        .select(db.raw("count(*) FILTER (WHERE status NOT IN ('stored', 'binned')) AS in_step"))
        .groupBy('storage_backend')
        .orderBy('storage_backend');
      return rows.map((row) => ({ backend: row.storage_backend as StorageBackend, atRest: Number(row.at_rest), inStep: Number(row.in_step) }));
    },

    /** How many images (in any state) have their objects on `backend`. */
    async countOn(backend: StorageBackend): Promise<number> {
      const [counted] = (await db('images').where('storage_backend', backend).count({ count: '*' })) as Array<{ count: unknown }>;
      return Number(counted?.count ?? 0);
    },

    /** Ids of images at rest whose objects are on `backend`, after `afterId`, in id order. */
    async findAtRestOn(backend: StorageBackend, options: { afterId: number; limit: number }): Promise<number[]> {
      const rows = await db('images')
        .where('storage_backend', backend)
        .whereIn('status', ['stored', 'binned'])
        .andWhere('id', '>', options.afterId)
        .orderBy('id')
        .limit(options.limit)
        .select('id');
      return rows.map((row: { id: unknown }) => Number(row.id));
    },

    /**
     * Moves one image at rest from one backend to another: `copy` runs while the row is locked, so
     * a delete, restore or purge of that image waits for it (and then acts where the objects are
     * now); the row then names the new backend, and the old one as leftover until its copies are
     * removed. Null, with nothing done, when the image is no longer at rest on `from`.
     */
    async moveBackend(id: number, from: StorageBackend, to: StorageBackend, copy: (image: ImageRow) => Promise<void>): Promise<ImageRow | null> {
      return db.transaction(async (trx) => {
        const row = await trx('images').where({ id, storage_backend: from }).whereIn('status', ['stored', 'binned']).forUpdate().first();
        if (!row) return null;
        await copy(toImage(row));
        const [moved] = await trx('images').where({ id }).update({ storage_backend: to, storage_leftover: from }).returning('*');
        return toImage(moved);
      });
    },

    /** Images whose old backend may still hold copies, in id order. */
    async findLeftovers(options: { afterId: number; limit: number }): Promise<ImageRow[]> {
      const rows = await db('images').whereNotNull('storage_leftover').andWhere('id', '>', options.afterId).orderBy('id').limit(options.limit).select('*');
      return rows.map(toImage);
    },

    /** The copies on `leftover` are gone. */
    async clearLeftover(id: number, leftover: StorageBackend): Promise<void> {
      await db('images').where({ id, storage_leftover: leftover }).update({ storage_leftover: null });
    },

    /** Claims an idempotency key for a new upload. False when someone already holds it. */
    async claimIdempotencyKey(userId: number, key: string): Promise<boolean> {
      const rows = await db('idempotency_keys').insert({ user_id: userId, key }).onConflict(['user_id', 'key']).ignore().returning('key');
      return rows.length === 1;
    },

    /** A claim of the key: `completedImageId` once its upload is stored (its result recorded). */
    async findIdempotencyClaim(userId: number, key: string): Promise<{ found: boolean; completedImageId: number | null }> {
      const row = await db('idempotency_keys').where({ user_id: userId, key }).first('image_id', 'result');
      if (!row) return { found: false, completedImageId: null };
      return { found: true, completedImageId: row.result !== null && row.image_id !== null ? Number(row.image_id) : null };
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
