import type { Logger } from 'pino';
import type { CategoriesRepository } from '../categories/categories-repository';
import { AppError } from '../errors/app-error';
import type { MessageKey } from '../errors/messages';
import { MediaError, type ImageInput, type MediaProcessor } from '../media/media-processor';
import type { Storage } from '../storage/storage';
import type { Principal } from '../auth/auth-service';
import type { UserRow } from '../users/users-repository';
import type { ImageFiles } from './image-files';
import type { UploadResult, ImageViews } from './image-views';
import type { ImagesRepository } from './images-repository';

/** A file as it arrived, not yet accepted: its bytes in memory, or a file in the store's tmp/. */
export interface ReceivedFile {
  input: ImageInput;
  size: number;
  originalName: string;
  /**
   * A fresh path in tmp/ for a file made from this one (the copy without metadata, a rendition).
   * Whoever received the upload removes it after the request, as the file itself, unless the
   * service moved it into the store.
   */
  newTempPath(): string;
  /** The store took this temp file (putFile): it is gone from tmp/, and nothing is left to remove. */
  storedAway(tempPath: string): void;
}

export interface UploadRequest {
  /** Who uploads, as the request's one lookup found them. */
  principal: Principal;
  file: ReceivedFile;
  /** Omitted: the user's default category. */
  categoryId?: number;
  idempotencyKey?: string;
}

export interface UploadOutcome {
  image: UploadResult;
  /** The stored result of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  madeThumbnail: boolean;
}

export interface UploadServiceDeps {
  images: ImagesRepository;
  categories: CategoriesRepository;
  storage: Storage;
  files: ImageFiles;
  media: MediaProcessor;
  views: ImageViews;
  logger: Logger;
  clock: () => Date;
}

const IDEMPOTENCY_WAIT_MS = 30_000;
const IDEMPOTENCY_POLL_MS = 100;
/** An unfinished claim older than this belongs to a request that died; a retry may take it over. */
const IDEMPOTENCY_STALE_MS = 10 * 60 * 1000;

/** The client's file name is data only: keep the last path segment, drop control characters, cap the length. */
export function cleanOriginalName(name: string, fallbackExtension: string): string {
  const lastSegment = name.split(/[\\/]/).pop() ?? '';
  const cleaned = lastSegment.replace(/\p{Cc}/gu, '').trim();
  const capped = Array.from(cleaned).slice(0, 255).join('');
  return capped === '' ? `image.${fallbackExtension}` : capped;
}

function refusalFor(error: MediaError): AppError {
  const refusals: Record<MediaError['failure'], MessageKey> = {
    unsupported: 'unsupportedType',
    'too-many-pixels': 'tooManyPixels',
    corrupt: 'corruptImage',
    'heic-undecodable': 'heicUnsupported',
  };
  return new AppError(refusals[error.failure], 200);
}

export function createUploadService(deps: UploadServiceDeps) {
  const { images, categories, storage, files, media, views, logger } = deps;

  /** Waits for the holder of an idempotency key to finish; returns its image's answer, or null once the key is ours. */
  async function claimOrReplay(userId: number, key: string): Promise<UploadResult | null> {
    const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
    for (;;) {
      const existing = await images.findIdempotencyClaim(userId, key);
      if (existing.completedImageId !== null) {
        const image = await images.findById(existing.completedImageId);
        if (image) return views.uploadResult(image);
      }
      if (!existing.found && (await images.claimIdempotencyKey(userId, key))) return null;
      if (existing.found) await images.releaseStaleIdempotencyKey(userId, key, new Date(deps.clock().getTime() - IDEMPOTENCY_STALE_MS));
      if (Date.now() > deadline) throw new AppError('idempotencyInProgress', 200);
      await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_POLL_MS));
    }
  }

  /** The category to store in; null for the user's default (resolved as the row is inserted). */
  async function resolveCategory(user: UserRow, categoryId: number | undefined): Promise<number | null> {
    if (categoryId === undefined) return null;
    const owned = await categories.findOwned(user.id, categoryId);
    if (!owned) throw new AppError('categoryNotFound', 200);
    return owned.id;
  }

  /**
   * Validates the bytes and makes the thumbnail; then, so that a crash at any point leaves nothing
   * recovery does not clean: charge + pending row (commit), both files (durable), stored (commit).
   */
  async function store(principal: Principal, file: ReceivedFile, categoryId: number | null, idempotencyKey: string | undefined) {
    const { user } = principal;
    let facts;
    let prepared;
    let thumbnail;
    try {
      facts = await media.inspect(file.input);
      prepared = await media.prepare(file.input, facts, { keepMetadata: user.keepMetadata, tempPath: file.newTempPath });
      thumbnail = await media.makeThumbnail(prepared.input, { ...facts, format: prepared.format }, prepared.size);
    } catch (error) {
      if (!(error instanceof MediaError)) throw error;
      logger.debug({ reason: error.message }, 'upload refused by media check');
      throw refusalFor(error);
    }
    const now = deps.clock();
    const reservation = await images.reserveUpload(
      {
        userId: user.id,
        categoryId,
        storageKey: storage.newStorageKey(prepared.extension, now),
        thumbKey: thumbnail ? storage.newStorageKey('webp', now) : null,
        storageBackend: storage.backend,
        format: prepared.format,
        originalName: cleanOriginalName(file.originalName, facts.extension),
        // What is stored is what is charged: the bytes without metadata, or the rendition's.
        fileSize: prepared.size,
        width: facts.width,
        height: facts.height,
      },
      file.size,
      idempotencyKey,
    );
    if ('refused' in reservation) {
      // The group or the user changed since the lookup: the answer a lookup now would give.
      const refusals = { disabled: 'notLoggedIn', 'too-large': 'fileTooLarge', quota: 'quotaExceeded' } as const;
      throw new AppError(refusals[reservation.refused], 200);
    }
    const { reserved } = reservation;
    try {
      await files.storeUpload(reserved, prepared.input, thumbnail);
      if (typeof prepared.input === 'string') file.storedAway(prepared.input);
      const stored = await images.completeUpload(reserved.id, idempotencyKey ? views.uploadResult(reserved) : undefined);
      if (!stored) throw new Error(`pending upload ${reserved.id} was recovered as abandoned before it completed`);
      return { image: views.uploadResult(stored), madeThumbnail: thumbnail !== null };
    } catch (error) {
      try {
        await files.removeAll(reserved);
        await images.dropUpload(reserved.id);
      } catch (cleanupError) {
        // The row stays pending; recovery removes its files and refunds it later.
        logger.error({ err: cleanupError, imageId: reserved.id }, 'could not undo a failed upload; recovery will');
      }
      throw error;
    }
  }

  return {
    /**
     * Validate, authorize, act. The file to store goes into the store on success (the local disk
     * renames it out of tmp/); whatever is left in tmp/ is the caller's, who received it, to remove.
     */
    async upload(request: UploadRequest): Promise<UploadOutcome> {
      const { principal, file } = request;
      const { user } = principal;
      let claimedKey: string | undefined;
      try {
        // Before the limit checks: a retry of a stored upload gets its result even though that upload
        // itself has since filled the quota (or the group's limits changed).
        if (request.idempotencyKey) {
          const replay = await claimOrReplay(user.id, request.idempotencyKey);
          if (replay) return { image: replay, replayed: true, madeThumbnail: false };
          claimedKey = request.idempotencyKey;
        }
        if (user.uploadsBanned) throw new AppError('uploadsBanned', 200);
        const categoryId = await resolveCategory(user, request.categoryId);
        // Early answers from the lookup, before the media work; the rules themselves are
        // charge_upload's, applied to the stored bytes (which may differ from the upload's) as they are charged.
        if (file.size > user.maxFileSize) throw new AppError('fileTooLarge', 200);
        if (user.usedBytes >= user.quotaBytes) throw new AppError('quotaExceeded', 200);
        const stored = await store(principal, file, categoryId, claimedKey);
        claimedKey = undefined;
        return { ...stored, replayed: false };
      } catch (error) {
        if (claimedKey) await images.releaseIdempotencyKey(user.id, claimedKey);
        throw error;
      }
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
