import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { mimeTypeForFormat } from '../media/media-processor';
import type { ObjectStore, StorageBackend } from '../storage/object-store';
import type { Storage } from '../storage/storage';
import type { StorageArea } from '../storage/storage-keys';
import type { ImageFiles } from './image-files';
import type { ImageRow, ImagesRepository } from './images-repository';
import type { RecoveryService } from './recovery-service';

const BATCH = 100;
/** Images moved at once by default: each holds a database connection (its row lock) while it is copied. */
export const DEFAULT_MIGRATION_CONCURRENCY = 8;

export interface MigrationProgress {
  /** Images handled so far in this run (moved or failed). */
  done: number;
  /** Images on the old backend when the run started. */
  total: number;
  moved: number;
  failed: number;
  /** Bytes copied so far (originals and thumbnails). */
  bytes: number;
}

export interface MigrationReport extends MigrationProgress {
  /** Copies left by an interrupted run, removed before this one began. */
  leftoversRemoved: number;
  /** Images still on the old backend at the end: mid-step (a delete, restore or purge running) or failed. */
  remaining: number;
  failures: Array<{ imageId: number; reason: string }>;
}

/** Reads an object into a temp file, hashing it on the way: what was read is exactly what is stored next. */
async function downloadToTemp(object: { body: NodeJS.ReadableStream }, tempFile: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(object.body, tap, createWriteStream(tempFile, { flags: 'wx' }));
  return { size, sha256: hash.digest('hex') };
}

/**
 * Runs `work` on every item, at most `concurrency` at a time, started in order. (The libraries for
 * this, p-map and p-limit, are ESM-only and not dependencies here; these eight lines are all it takes.)
 */
async function forEachConcurrently<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function digestOf(object: { body: NodeJS.ReadableStream }): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of object.body as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * `storage:migrate`: moves every image's objects from one backend to the other, `concurrency` images
 * at a time (default 8), while the service goes on serving. For each image: its row is locked (a delete, restore or
 * purge of it waits), each object is copied through tmp/ and read back from the new backend to
 * compare size and SHA-256, the row names the new backend (commit), and the old copies are removed.
 * Stopped at any point, the next run carries on: moved images are done, a half-copied one is copied
 * again, and copies an interrupted run did not remove are removed first.
 */
export function createStorageMigration(deps: { images: ImagesRepository; files: ImageFiles; storage: Storage; recovery: RecoveryService; logger: Logger }) {
  const { images, files, storage, logger } = deps;

  async function copyObject(source: ObjectStore, target: ObjectStore, area: StorageArea, key: string, contentType: string, expectedSize: number | null): Promise<number> {
    const opened = await source.open(area, key);
    if (!opened) throw new Error(`${area}/${key} is missing on ${source.backend}`);
    const tempFile = storage.temp.newTempPath();
    let copied;
    try {
      copied = await downloadToTemp(opened, tempFile);
      if (copied.size !== opened.size || (expectedSize !== null && copied.size !== expectedSize)) {
        throw new Error(`${area}/${key} on ${source.backend} has ${copied.size} bytes, expected ${expectedSize ?? opened.size}`);
      }
      // Once stored, the temp file is the target's (gone from tmp/); until then it is removed here.
      await target.putFile(area, key, tempFile, contentType);
    } catch (error) {
      await storage.temp.removeTemp(tempFile);
      throw error;
    }
    const stored = await target.open(area, key);
    if (!stored) throw new Error(`${area}/${key} is not on ${target.backend} after it was written`);
    const check = await digestOf(stored);
    if (check.size !== copied.size || check.sha256 !== copied.sha256) {
      throw new Error(`${area}/${key} on ${target.backend} does not match the original (${check.size} bytes, sha256 ${check.sha256}; expected ${copied.size}, ${copied.sha256})`);
    }
    return copied.size;
  }

  async function moveImage(image: ImageRow, source: ObjectStore, target: ObjectStore): Promise<number> {
    let bytes = await copyObject(source, target, image.status === 'binned' ? 'bin' : 'public', image.storageKey, mimeTypeForFormat(image.format), image.fileSize);
    if (image.thumbKey) bytes += await copyObject(source, target, 'thumbs', image.thumbKey, 'image/webp', null);
    return bytes;
  }

  return {
    async migrate(
      to: StorageBackend,
      onProgress: (progress: MigrationProgress) => void = () => {},
      options: { concurrency?: number } = {},
    ): Promise<MigrationReport> {
      const concurrency = options.concurrency ?? DEFAULT_MIGRATION_CONCURRENCY;
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
      const from: StorageBackend = to === 's3' ? 'local' : 's3';
      const source = storage.storeFor(from);
      const target = storage.storeFor(to);
      const leftoversRemoved = await deps.recovery.removeStorageLeftovers();
      const onSource = async () => (await images.countByBackend()).find((count) => count.backend === from);
      const before = await onSource();
      const progress: MigrationProgress = { done: 0, total: (before?.atRest ?? 0) + (before?.inStep ?? 0), moved: 0, failed: 0, bytes: 0 };
      const failures: MigrationReport['failures'] = [];
      onProgress({ ...progress });
      const failed = new Set<number>();
      // A second pass picks up images that were mid-step (a delete running) during the first.
      for (let pass = 0; pass < 2; pass += 1) {
        for (let afterId = 0; ; ) {
          const ids = await images.findAtRestOn(from, { afterId, limit: BATCH });
          if (ids.length === 0) break;
          afterId = ids.at(-1)!;
          await forEachConcurrently(ids.filter((id) => !failed.has(id)), concurrency, async (id) => {
            try {
              let bytes = 0;
              const moved = await images.moveBackend(id, from, to, async (image) => {
                bytes = await moveImage(image, source, target);
              });
              if (!moved) return;
              await files.removeFrom(source, moved);
              await images.clearLeftover(id, from);
              progress.moved += 1;
              progress.bytes += bytes;
            } catch (error) {
              // The row stays on the old backend: what reached the new one is a stray copy.
              const image = await images.findById(id);
              if (image && image.storageBackend === from) await files.removeFrom(target, image).catch(() => undefined);
              failed.add(id);
              progress.failed += 1;
              failures.push({ imageId: id, reason: (error as Error).message });
              logger.error({ err: error, imageId: id, from, to }, 'could not move an image to the other storage backend');
            }
            progress.done += 1;
            progress.total = Math.max(progress.total, progress.done);
            onProgress({ ...progress });
          });
        }
      }
      const after = await onSource();
      return { ...progress, leftoversRemoved, remaining: (after?.atRest ?? 0) + (after?.inStep ?? 0), failures };
    },
  };
}

export type StorageMigration = ReturnType<typeof createStorageMigration>;
