import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
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
import type { ImageRow, ImagesRepository } from './images-repository';

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
  /** When the new image moves into the bin by itself; omitted: never. A duplicate's answer keeps the existing image's. */
  expiresAt?: Date;
}

export interface UploadOutcome {
  image: UploadResult;
  /** The stored result of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  /** The user already had this content stored: the answer is that image, and nothing new was stored or charged. */
  duplicate: boolean;
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

/** How long a duplicate refused for quota waits for a concurrent upload of the same content to be stored. */
const DUPLICATE_WAIT_MS = 30_000;
const DUPLICATE_POLL_MS = 50;

/** SHA-256 of the bytes as received (in memory, or a file in tmp/). */
export async function contentHashOf(input: ImageInput): Promise<Buffer> {
  const hash = createHash('sha256');
  if (typeof input !== 'string') return hash.update(input).digest();
  for await (const chunk of createReadStream(input)) hash.update(chunk as Buffer);
  return hash.digest();
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
  /** The user's stored image of this content, answered as an upload's result (tying the request's Idempotency-Key to it). */
  async function answerDuplicate(existing: ImageRow, idempotencyKey: string | undefined): Promise<UploadOutcome> {
    const image = views.uploadResult(existing);
    if (idempotencyKey) await images.completeIdempotencyKey(existing.userId, idempotencyKey, existing.id, image);
    return { image, replayed: false, duplicate: true, madeThumbnail: false };
  }

  /**
   * After a quota refusal: an upload of the same content by the same user may be under way (two
   * identical uploads at once, both charged until one is stored). Waits for it; its image is the
   * answer. Null when there is none, or it failed: the refusal stands.
   */
  async function awaitConcurrentDuplicate(userId: number, contentHash: Buffer): Promise<ImageRow | null> {
    const deadline = Date.now() + DUPLICATE_WAIT_MS;
    for (;;) {
      const stored = await images.findStoredByContent(userId, contentHash);
      if (stored) return stored;
      if (!(await images.hasPendingContent(userId, contentHash))) {
        // It may have been stored between the two looks: one more look settles it.
        return images.findStoredByContent(userId, contentHash);
      }
      if (Date.now() > deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, DUPLICATE_POLL_MS));
    }
  }

  async function store(
    principal: Principal,
    file: ReceivedFile,
    categoryId: number | null,
    idempotencyKey: string | undefined,
    contentHash: Buffer,
    expiresAt: Date | null,
  ): Promise<UploadOutcome> {
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
        contentHash,
        expiresAt,
      },
      file.size,
      idempotencyKey,
    );
    if ('refused' in reservation) {
      if (reservation.refused === 'quota') {
        const duplicate = await awaitConcurrentDuplicate(user.id, contentHash);
        if (duplicate) return answerDuplicate(duplicate, idempotencyKey);
      }
      // The group or the user changed since the lookup: the answer a lookup now would give.
      const refusals = { disabled: 'notLoggedIn', 'too-large': 'fileTooLarge', quota: 'quotaExceeded' } as const;
      throw new AppError(refusals[reservation.refused], 200);
    }
    const { reserved } = reservation;
    try {
      await files.storeUpload(reserved, prepared.input, thumbnail);
      if (typeof prepared.input === 'string') file.storedAway(prepared.input);
      for (;;) {
        const stored = await images.completeUpload(reserved.id, idempotencyKey ? views.uploadResult(reserved) : undefined);
        if (stored === null) throw new Error(`pending upload ${reserved.id} was recovered as abandoned before it completed`);
        if (stored !== 'duplicate') return { image: views.uploadResult(stored), replayed: false, duplicate: false, madeThumbnail: thumbnail !== null };
        // An identical upload of this user's was stored first: that image is the answer, this one's
        // files and charge are given back (the key is tied to the winner before the row goes).
        const winner = await images.findStoredByContent(user.id, contentHash);
        if (!winner) continue; // binned in the meantime: this one completes after all
        const answer = await answerDuplicate(winner, idempotencyKey);
        try {
          await files.removeAll(reserved);
          await images.dropUpload(reserved.id);
        } catch (cleanupError) {
          logger.error({ err: cleanupError, imageId: reserved.id }, 'could not undo a duplicate upload; recovery will');
        }
        return answer;
      }
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
          if (replay) return { image: replay, replayed: true, duplicate: false, madeThumbnail: false };
          claimedKey = request.idempotencyKey;
        }
        if (user.uploadsBanned) throw new AppError('uploadsBanned', 200);
        const categoryId = await resolveCategory(user, request.categoryId);
        // Deduplication, per owner: content this user already has stored (not binned) is answered
        // with that image at once, before the limits (it costs nothing) and the media work. Its name,
        // category and expiry stay as they are. Other users' images are never looked at.
        const contentHash = await contentHashOf(file.input);
        const existing = await images.findStoredByContent(user.id, contentHash);
        if (existing) {
          const answer = await answerDuplicate(existing, claimedKey);
          claimedKey = undefined;
          return answer;
        }
        // Early answers from the lookup, before the media work; the rules themselves are
        // charge_upload's, applied to the stored bytes (which may differ from the upload's) as they are charged.
        if (file.size > user.maxFileSize) throw new AppError('fileTooLarge', 200);
        if (user.usedBytes >= user.quotaBytes) {
          const duplicate = await awaitConcurrentDuplicate(user.id, contentHash);
          if (!duplicate) throw new AppError('quotaExceeded', 200);
          const answer = await answerDuplicate(duplicate, claimedKey);
          claimedKey = undefined;
          return answer;
        }
        const stored = await store(principal, file, categoryId, claimedKey, contentHash, request.expiresAt ?? null);
        claimedKey = undefined;
        return stored;
      } catch (error) {
        if (claimedKey) await images.releaseIdempotencyKey(user.id, claimedKey);
        throw error;
      }
    },
  };
}

export type UploadService = ReturnType<typeof createUploadService>;
