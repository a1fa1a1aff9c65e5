import type { Logger } from 'pino';
import type { CategoriesRepository } from '../categories/categories-repository';
import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import { MediaError, type MediaProcessor } from '../media/media-processor';
import type { FileStorage } from '../storage/file-storage';
import type { UserRow } from '../users/users-repository';
import type { ImageFiles } from './image-files';
import type { UploadResult, ImageViews } from './image-views';
import type { ImagesRepository } from './images-repository';

/** A file as it arrived: already in the store's tmp/, not yet accepted. */
export interface ReceivedFile {
  path: string;
  size: number;
  originalName: string;
}

export interface UploadRequest {
  user: UserRow;
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
  storage: FileStorage;
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
  if (error.failure === 'unsupported') return new AppError(Messages.unsupportedType, 200);
  if (error.failure === 'too-many-pixels') return new AppError(Messages.tooManyPixels, 200);
  return new AppError(Messages.corruptImage, 200);
}

export function createUploadService(deps: UploadServiceDeps) {
  const { images, categories, storage, files, media, views, logger } = deps;

  /** Waits for the holder of an idempotency key to finish; returns its result, or null once the key is ours. */
  async function claimOrReplay(userId: number, key: string): Promise<UploadResult | null> {
    const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
    for (;;) {
      const existing = await images.findIdempotencyResult(userId, key);
      // jsonb does not keep key order; answer in the order of the first response.
      if (existing.found && existing.result) return inContractOrder(existing.result as UploadResult);
      if (!existing.found && (await images.claimIdempotencyKey(userId, key))) return null;
      if (existing.found) await images.releaseStaleIdempotencyKey(userId, key, new Date(deps.clock().getTime() - IDEMPOTENCY_STALE_MS));
      if (Date.now() > deadline) throw new AppError(Messages.idempotencyInProgress, 200);
      await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_POLL_MS));
    }
  }

  async function resolveCategory(user: UserRow, categoryId: number | undefined): Promise<number> {
    if (categoryId === undefined) {
      const fallback = await categories.findDefault(user.id);
      if (!fallback) throw new Error(`user ${user.id} has no default category`);
      return fallback.id;
    }
    const owned = await categories.findOwned(user.id, categoryId);
    if (!owned) throw new AppError(Messages.categoryNotFound, 200);
    return owned.id;
  }

  /**
   * Validates the bytes and makes the thumbnail; then, so that a crash at any point leaves nothing
   * recovery does not clean: charge + pending row (commit), both files (durable), stored (commit).
   */
  async function store(user: UserRow, file: ReceivedFile, categoryId: number, idempotencyKey: string | undefined) {
    let facts;
    let thumbnail;
    try {
      facts = await media.inspect(file.path);
      thumbnail = await media.makeThumbnail(file.path, facts, file.size);
    } catch (error) {
      if (!(error instanceof MediaError)) throw error;
      logger.debug({ reason: error.message }, 'upload refused by media check');
      throw refusalFor(error);
    }
    const now = deps.clock();
    const reserved = await images.reserveUpload(
      {
        userId: user.id,
        categoryId,
        storageKey: storage.newStorageKey(facts.extension, now),
        thumbKey: thumbnail ? storage.newStorageKey('webp', now) : null,
        format: facts.format,
        originalName: cleanOriginalName(file.originalName, facts.extension),
        fileSize: file.size,
        width: facts.width,
        height: facts.height,
      },
      idempotencyKey,
    );
    if (!reserved) throw new AppError(Messages.quotaExceeded, 200);
    try {
      await storage.commitTempFile(file.path, 'public', reserved.storageKey);
      if (thumbnail && reserved.thumbKey) await storage.writeFile('thumbs', reserved.thumbKey, thumbnail);
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
     * Validate, authorize, act. The received file is moved into the store on success; on failure it
     * stays in tmp/ for the caller, who received it, to remove.
     */
    async upload(request: UploadRequest): Promise<UploadOutcome> {
      const { user, file } = request;
      let claimedKey: string | undefined;
      try {
        // Before the limit checks: a retry of a stored upload gets its result even though that upload
        // itself has since filled the quota (or the group's limits changed).
        if (request.idempotencyKey) {
          const replay = await claimOrReplay(user.id, request.idempotencyKey);
          if (replay) return { image: replay, replayed: true, madeThumbnail: false };
          claimedKey = request.idempotencyKey;
        }
        const categoryId = await resolveCategory(user, request.categoryId);
        if (file.size > user.maxFileSize) throw new AppError(Messages.fileTooLarge, 200);
        // A cheap early answer; the atomic charge later is what actually guards the quota.
        if (user.usedBytes + file.size > user.quotaBytes) throw new AppError(Messages.quotaExceeded, 200);
        const stored = await store(user, file, categoryId, claimedKey);
        claimedKey = undefined;
        return { ...stored, replayed: false };
      } catch (error) {
        if (claimedKey) await images.releaseIdempotencyKey(user.id, claimedKey);
        throw error;
      }
    },
  };
}

/** A stored upload answer read back from jsonb (which does not keep key order), in the contract's order. */
function inContractOrder(stored: UploadResult): UploadResult {
  return {
    id: stored.id,
    url: stored.url,
    thumb_url: stored.thumb_url,
    original_name: stored.original_name,
    file_size: stored.file_size,
    width: stored.width,
    height: stored.height,
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
