import type { Logger } from 'pino';
import { hashToken } from '../auth/tokens';
import type { CategoriesRepository } from '../categories/categories-repository';
import { AppError } from '../http/app-error';
import { Messages } from '../http/messages';
import { MediaError, mimeTypeForFormat, type ImageFacts, type MediaProcessor } from '../media/media-processor';
import type { Metrics } from '../metrics/metrics';
import type { FileStorage } from '../storage/file-storage';
import type { ThumbSigner } from '../thumbnails/thumb-signer';
import type { UserRow, UsersRepository } from '../users/users-repository';
import type { ImageRow, ImagesRepository } from './images-repository';
import { cleanOriginalName, parseCategoryName, parseId, parseOptionalCategoryId, parsePageQuery } from './input';

export interface ReceivedFile {
  path: string;
  size: number;
  originalName: string;
}

export interface UploadResult {
  id: number;
  url: string;
  thumb_url: string;
  original_name: string;
  file_size: number;
  width: number;
  height: number;
}

export interface ImagesServiceDeps {
  users: UsersRepository;
  categories: CategoriesRepository;
  images: ImagesRepository;
  storage: FileStorage;
  media: MediaProcessor;
  signer: ThumbSigner;
  metrics: Metrics;
  logger: Logger;
  clock: () => Date;
  publicBaseUrl: string;
  timeZone: string;
  recycleRetentionDays: number;
}

const IDEMPOTENCY_WAIT_MS = 30_000;
const IDEMPOTENCY_POLL_MS = 100;
/** An unfinished claim older than this belongs to a request that died; a retry may take it over. */
const IDEMPOTENCY_STALE_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

function isMissingFile(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

export function createImagesService(deps: ImagesServiceDeps) {
  const { users, categories, images, storage, media, signer, metrics, logger } = deps;
  const timeParts = new Intl.DateTimeFormat('en-CA', {
    timeZone: deps.timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });

  const formatTime = (date: Date): string => {
    const p = Object.fromEntries(timeParts.formatToParts(date).map((part) => [part.type, part.value]));
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
  const imageUrl = (storageKey: string) => `${deps.publicBaseUrl}/i/${storageKey}`;
  const thumbUrl = (id: number) => `${deps.publicBaseUrl}/api/thumb.php?id=${id}&sig=${signer.sign(id)}`;

  const uploadResult = (image: Pick<ImageRow, 'id' | 'storageKey' | 'originalName' | 'fileSize' | 'width' | 'height'>): UploadResult => ({
    id: image.id,
    url: imageUrl(image.storageKey),
    thumb_url: thumbUrl(image.id),
    original_name: image.originalName,
    file_size: image.fileSize,
    width: image.width,
    height: image.height,
  });

  const uploadResultFields = (stored: UploadResult): UploadResult => ({
    id: stored.id,
    url: stored.url,
    thumb_url: stored.thumb_url,
    original_name: stored.original_name,
    file_size: stored.file_size,
    width: stored.width,
    height: stored.height,
  });

  /** A category filter must name one of the user's categories, as on upload. */
  async function requireOwnedCategory(user: UserRow, categoryId: number | undefined): Promise<void> {
    if (categoryId !== undefined && !(await categories.findOwned(user.id, categoryId))) throw new AppError(Messages.categoryNotFound);
  }

  async function resolveCategory(user: UserRow, rawCategoryId: unknown): Promise<number> {
    const categoryId = parseOptionalCategoryId(rawCategoryId);
    if (categoryId === undefined) {
      const fallback = await categories.findDefault(user.id);
      if (!fallback) throw new Error(`user ${user.id} has no default category`);
      return fallback.id;
    }
    const owned = await categories.findOwned(user.id, categoryId);
    if (!owned) throw new AppError(Messages.categoryNotFound);
    return owned.id;
  }

  /** Waits for the holder of an idempotency key to finish; returns its result, or null once the key is ours. */
  async function claimOrReplay(userId: number, key: string): Promise<UploadResult | null> {
    const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
    for (;;) {
      const existing = await images.findIdempotencyResult(userId, key);
      // jsonb does not keep key order; answer in the order of the first response.
      if (existing.found && existing.result) return uploadResultFields(existing.result as UploadResult);
      if (!existing.found && (await images.claimIdempotencyKey(userId, key))) return null;
      if (existing.found) await images.releaseStaleIdempotencyKey(userId, key, new Date(deps.clock().getTime() - IDEMPOTENCY_STALE_MS));
      if (Date.now() > deadline) throw new AppError(Messages.idempotencyInProgress);
      await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_POLL_MS));
    }
  }

  async function storeValidatedUpload(user: UserRow, file: ReceivedFile, categoryId: number, idempotencyKey?: string): Promise<UploadResult> {
    let facts: ImageFacts;
    const thumbTemp = storage.tempPath('.webp');
    try {
      facts = await media.inspect(file.path);
      const hasOwnThumbnail = await media.makeThumbnail(file.path, facts, file.size, thumbTemp);
      if (hasOwnThumbnail) metrics.countThumbnail();

      const now = deps.clock();
      const storageKey = storage.newStorageKey(facts.extension, now);
      const thumbKey = hasOwnThumbnail ? storage.newStorageKey('webp', now) : null;
      const originalName = cleanOriginalName(file.originalName, facts.extension);
      try {
        // Charge, file commit and row insert form one transaction: if anything fails or the process
        // dies on the way, the charge rolls back with the row. The row still commits only after
        // both files are durable.
        const image = await images.insertCharged(
          {
            userId: user.id,
            categoryId,
            storageKey,
            thumbKey,
            format: facts.format,
            originalName,
            fileSize: file.size,
            width: facts.width,
            height: facts.height,
          },
          async () => {
            await storage.commitTempFile(file.path, 'public', storageKey);
            if (thumbKey) await storage.commitTempFile(thumbTemp, 'thumbs', thumbKey);
          },
          idempotencyKey ? { key: idempotencyKey, result: (id) => uploadResult({ id, storageKey, originalName, fileSize: file.size, width: facts.width, height: facts.height }) } : undefined,
        );
        if (!image) throw new AppError(Messages.quotaExceeded);
        return uploadResult(image);
      } catch (error) {
        await storage.remove('public', storageKey);
        if (thumbKey) await storage.remove('thumbs', thumbKey);
        throw error;
      }
    } catch (error) {
      if (error instanceof MediaError) {
        logger.debug({ reason: error.message }, 'upload refused by media check');
        if (error.failure === 'unsupported') throw new AppError(Messages.unsupportedType);
        if (error.failure === 'too-many-pixels') throw new AppError(Messages.tooManyPixels);
        throw new AppError(Messages.corruptImage);
      }
      throw error;
    } finally {
      await storage.removeTemp(thumbTemp);
    }
  }

  function outcomeFor(error: unknown) {
    if (!(error instanceof AppError)) return 'failed' as const;
    switch (error.envelopeMessage) {
      case Messages.notLoggedIn:
        return 'rejected_auth' as const;
      case Messages.fileTooLarge:
        return 'rejected_size' as const;
      case Messages.quotaExceeded:
        return 'rejected_quota' as const;
      case Messages.unsupportedType:
      case Messages.tooManyPixels:
      case Messages.corruptImage:
        return 'rejected_type' as const;
      default:
        return 'rejected_input' as const;
    }
  }

  async function purgeImage(id: number, options: { userId?: number; deletedBefore?: Date } = {}): Promise<boolean> {
    const image = await images.purge(id, options);
    if (!image) return false;
    // The row is gone and the bytes refunded; leftover files would only be unreachable garbage.
    await storage.remove('bin', image.storageKey).catch((error) => logger.error({ err: error, imageId: id }, 'could not remove purged file'));
    if (image.thumbKey) await storage.remove('thumbs', image.thumbKey).catch((error) => logger.error({ err: error, imageId: id }, 'could not remove purged thumbnail'));
    return true;
  }

  /** Purges bin items deleted before `deletedBefore` (all of them when omitted), in batches. */
  async function purgeBinned(options: { deletedBefore?: Date; userId?: number } = {}): Promise<number> {
    let purged = 0;
    for (;;) {
      const ids = await images.findBinnedIds({ ...options, limit: 500 });
      if (ids.length === 0) return purged;
      // The age is checked again as each row is deleted: one restored and binned again since the
      // lookup is young again and stays.
      for (const id of ids) if (await purgeImage(id, { deletedBefore: options.deletedBefore })) purged += 1;
    }
  }

  return {
    async authenticate(token: string | undefined): Promise<UserRow> {
      if (!token) throw new AppError(Messages.notLoggedIn);
      const user = await users.findByTokenHash(hashToken(token));
      if (!user) throw new AppError(Messages.notLoggedIn);
      return user;
    },

    countRejectedUpload(error: unknown): void {
      metrics.countUpload(outcomeFor(error));
    },

    /**
     * Validate, authorize, act. The received temp file is always consumed: moved into the store
     * on success, removed on every failure.
     */
    async upload(input: { user: UserRow; file: ReceivedFile | undefined; categoryId: unknown; idempotencyKey?: string }): Promise<UploadResult> {
      const { user, file } = input;
      let claimedKey: string | undefined;
      try {
        if (!file || file.size === 0) throw new AppError(Messages.noFile);
        // Before the limit checks: a retry of a stored upload gets its result even though that upload
        // itself has since filled the quota (or the group's limits changed).
        if (input.idempotencyKey) {
          const replay = await claimOrReplay(user.id, input.idempotencyKey);
          if (replay) {
            metrics.countUpload('replayed');
            return replay;
          }
          claimedKey = input.idempotencyKey;
        }
        const categoryId = await resolveCategory(user, input.categoryId);
        if (file.size > user.maxFileSize) throw new AppError(Messages.fileTooLarge);
        // A cheap early answer; the atomic charge later is what actually guards the quota.
        if (user.usedBytes + file.size > user.quotaBytes) throw new AppError(Messages.quotaExceeded);
        const result = await storeValidatedUpload(user, file, categoryId, claimedKey);
        claimedKey = undefined;
        metrics.countUpload('stored');
        return result;
      } catch (error) {
        metrics.countUpload(outcomeFor(error));
        if (claimedKey) await images.releaseIdempotencyKey(user.id, claimedKey);
        throw error;
      } finally {
        if (file) await storage.removeTemp(file.path);
      }
    },

    async list(user: UserRow, query: Record<string, unknown>) {
      const { page, limit, categoryId, keyword } = parsePageQuery(query);
      await requireOwnedCategory(user, categoryId);
      const { rows, total } = await images.list({ userId: user.id, status: 'stored', categoryId, keyword, limit, offset: (page - 1) * limit });
      return {
        list: rows.map((image) => ({
          id: image.id,
          original_name: image.originalName,
          url: imageUrl(image.storageKey),
          thumb_url: thumbUrl(image.id),
          file_size: image.fileSize,
          create_time: formatTime(image.createdAt),
        })),
        total,
        page,
        limit,
      };
    },

    async trash(user: UserRow, query: Record<string, unknown>) {
      const { page, limit, categoryId, keyword } = parsePageQuery(query);
      await requireOwnedCategory(user, categoryId);
      const { rows, total } = await images.list({ userId: user.id, status: 'binned', categoryId, keyword, limit, offset: (page - 1) * limit });
      return {
        list: rows.map((image) => {
          const deletedAt = image.deletedAt ?? image.createdAt;
          return {
            id: image.id,
            original_name: image.originalName,
            file_size: image.fileSize,
            create_time: formatTime(image.createdAt),
            delete_time: formatTime(deletedAt),
            purge_time: formatTime(new Date(deletedAt.getTime() + deps.recycleRetentionDays * DAY_MS)),
          };
        }),
        total,
        page,
        limit,
      };
    },

    /** Moves the image to the bin: its file leaves public/ so url and thumb_url answer 404. */
    async delete(user: UserRow, rawId: unknown): Promise<void> {
      const id = parseId(rawId);
      let moved: string | undefined;
      try {
        const image = await images.bin(user.id, id, async (row) => {
          try {
            await storage.move('public', 'bin', row.storageKey);
            moved = row.storageKey;
          } catch (error) {
            if (!isMissingFile(error)) throw error;
            logger.warn({ imageId: row.id }, 'public file already missing while binning');
          }
        });
        if (!image) throw new AppError(Messages.imageNotFound);
      } catch (error) {
        if (moved && !(error instanceof AppError)) await storage.move('bin', 'public', moved).catch(() => undefined);
        throw error;
      }
    },

    async restore(user: UserRow, rawId: unknown): Promise<void> {
      const id = parseId(rawId);
      let moved: string | undefined;
      try {
        const image = await images.restore(user.id, id, async (row) => {
          try {
            await storage.move('bin', 'public', row.storageKey);
            moved = row.storageKey;
          } catch (error) {
            if (!isMissingFile(error)) throw error;
            logger.warn({ imageId: row.id }, 'bin file missing while restoring');
          }
        });
        if (!image) throw new AppError(Messages.imageNotFound);
      } catch (error) {
        if (moved && !(error instanceof AppError)) await storage.move('public', 'bin', moved).catch(() => undefined);
        throw error;
      }
    },

    /** Permanently removes one image from the user's bin and frees its bytes. */
    async purge(user: UserRow, rawId: unknown): Promise<void> {
      const id = parseId(rawId);
      const purged = await purgeImage(id, { userId: user.id });
      if (!purged) throw new AppError(Messages.imageNotFound);
    },

    purgeBinned,

    async purgeExpired(): Promise<number> {
      return purgeBinned({ deletedBefore: new Date(deps.clock().getTime() - deps.recycleRetentionDays * DAY_MS) });
    },

    async listCategories(user: UserRow) {
      const rows = await categories.listForUser(user.id);
      return {
        list: rows.map((row) => ({
          id: row.id,
          name: row.name,
          is_default: row.isDefault,
          image_count: row.imageCount,
          create_time: formatTime(row.createdAt),
        })),
      };
    },

    async createCategory(user: UserRow, rawName: unknown) {
      const name = parseCategoryName(rawName);
      const created = await categories.create(user.id, name);
      if (!created) throw new AppError(Messages.categoryExists);
      return { id: created.id, name };
    },

    async profile(user: UserRow) {
      const fresh = (await users.findById(user.id)) ?? user;
      return {
        username: fresh.name,
        group: fresh.groupName,
        max_file_size: fresh.maxFileSize,
        quota_bytes: fresh.quotaBytes,
        used_bytes: fresh.usedBytes,
        free_bytes: Math.max(fresh.quotaBytes - fresh.usedBytes, 0),
        recycle_retention_days: deps.recycleRetentionDays,
      };
    },

    /** Public thumbnail lookup: null (404) for a bad signature, an unknown id or an image in the bin. */
    async thumbnail(rawId: unknown, rawSig: unknown): Promise<{ path: string; mimeType: string } | null> {
      if (typeof rawId !== 'string' || typeof rawSig !== 'string' || !/^[1-9]\d{0,15}$/.test(rawId)) return null;
      const id = Number(rawId);
      if (!Number.isSafeInteger(id) || !signer.verify(id, rawSig)) return null;
      const image = await images.findById(id);
      if (!image || image.status !== 'stored') return null;
      if (image.thumbKey) return { path: storage.absolutePath('thumbs', image.thumbKey), mimeType: 'image/webp' };
      return { path: storage.absolutePath('public', image.storageKey), mimeType: mimeTypeForFormat(image.format) };
    },
  };
}

export type ImagesService = ReturnType<typeof createImagesService>;
