import type { Logger } from 'pino';
import { mimeTypeForFormat, type ImageInput } from '../media/media-processor';
import type { ObjectStore, OpenedObject } from '../storage/object-store';
import type { Storage } from '../storage/storage';
import type { StorageArea } from '../storage/storage-keys';
import type { ImageRow } from './images-repository';

type ImageObjects = Pick<ImageRow, 'id' | 'storageKey' | 'thumbKey' | 'storageBackend' | 'format'>;

/**
 * The objects of one image, in the backend its row names, for the steps between two commits: each
 * operation may run again after a crash (recovery) and must then find its work done or do it, never
 * fail on its own leftovers.
 *
 * While a second backend is configured (a storage migration between them), a copy of the image may
 * also sit in the other one: one that an interrupted migration wrote before its commit, or did not
 * remove after it. nginx serves /i/ from the local disk first and the bucket second, so such a copy
 * in public/ would go on serving a binned image: every step that takes an original out of public/,
 * or removes the image, removes it from the other backends too.
 */
export function createImageFiles(storage: Storage, logger: Logger) {
  const others = (image: ImageObjects): ObjectStore[] => storage.configured.filter((store) => store.backend !== image.storageBackend);
  const storeOf = (image: ImageObjects): ObjectStore => storage.storeFor(image.storageBackend);

  return {
    /**
     * Stores an upload's objects durably: the original (a temp file, which the store takes, or bytes)
     * in public/, the thumbnail in thumbs/. Both are written at once (their waits for the disk or the
     * bucket overlap). It settles only when both writes have ended, so that a failure's cleanup never
     * races a write still going.
     */
    async storeUpload(image: ImageObjects, original: ImageInput, thumbnail: Buffer | null): Promise<void> {
      const store = storeOf(image);
      const contentType = mimeTypeForFormat(image.format);
      const writes = [
        typeof original === 'string' ? store.putFile('public', image.storageKey, original, contentType) : store.putBytes('public', image.storageKey, original, contentType),
      ];
      if (thumbnail && image.thumbKey) writes.push(store.putBytes('thumbs', image.thumbKey, thumbnail, 'image/webp'));
      const failed = (await Promise.allSettled(writes)).find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    },

    /** Puts the original in `area` (public: served under /i/; bin: not served), from the other area. */
    async place(image: ImageObjects, area: 'public' | 'bin'): Promise<void> {
      const from = area === 'public' ? 'bin' : 'public';
      const store = storeOf(image);
      for (const other of others(image)) await other.remove(from, image.storageKey);
      if (await store.exists(from, image.storageKey)) {
        await store.move(from, area, image.storageKey);
        return;
      }
      // Moved already (by the step that crashed, or another recovery run); or lost.
      if (!(await store.exists(area, image.storageKey))) {
        logger.error({ imageId: image.id, storageKey: image.storageKey, backend: image.storageBackend }, 'image file missing from both public/ and bin/');
      }
    },

    /** Removes the original (wherever it is) and the thumbnail, from every configured backend. */
    async removeAll(image: Pick<ImageObjects, 'storageKey' | 'thumbKey'>): Promise<void> {
      for (const store of storage.configured) await removeFrom(store, image);
    },

    /** Removes the image's objects from one backend (the copies a storage migration left there). */
    removeFrom,

    /**
     * The bytes the thumbnail URL serves: the WebP thumbnail, or the original (in `originalArea`: bin/
     * while binned) when it is its own thumbnail.
     */
    async openThumbnail(image: ImageObjects, originalArea: 'public' | 'bin' = 'public'): Promise<{ object: OpenedObject; mimeType: string } | null> {
      const [area, key, mimeType]: [StorageArea, string, string] = image.thumbKey
        ? ['thumbs', image.thumbKey, 'image/webp']
        : [originalArea, image.storageKey, mimeTypeForFormat(image.format)];
      const object = await storeOf(image).open(area, key);
      return object && { object, mimeType };
    },
  };

  async function removeFrom(store: ObjectStore, image: Pick<ImageObjects, 'storageKey' | 'thumbKey'>): Promise<void> {
    await store.remove('public', image.storageKey);
    await store.remove('bin', image.storageKey);
    if (image.thumbKey) await store.remove('thumbs', image.thumbKey);
  }
}

export type ImageFiles = ReturnType<typeof createImageFiles>;
