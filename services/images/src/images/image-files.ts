import type { Logger } from 'pino';
import type { FileStorage } from '../storage/file-storage';
import type { ImageRow } from './images-repository';

/**
 * The files of one image, for the steps between two commits: each operation may run again after a
 * crash (recovery) and must then find its work done or do it, never fail on its own leftovers.
 */
export function createImageFiles(storage: FileStorage, logger: Logger) {
  return {
    /** Puts the original in `area` (public: served under /i/; bin: not served), from the other area. */
    async place(image: ImageRow, area: 'public' | 'bin'): Promise<void> {
      const from = area === 'public' ? 'bin' : 'public';
      if (await storage.exists(from, image.storageKey)) {
        await storage.move(from, area, image.storageKey);
        return;
      }
      // Moved already (by the step that crashed, or another recovery run); or lost.
      if (!(await storage.exists(area, image.storageKey))) {
        logger.error({ imageId: image.id, storageKey: image.storageKey }, 'image file missing from both public/ and bin/');
      }
    },

    /** Removes the original (wherever it is) and the thumbnail. */
    async removeAll(image: ImageRow): Promise<void> {
      await storage.remove('public', image.storageKey);
      await storage.remove('bin', image.storageKey);
      if (image.thumbKey) await storage.remove('thumbs', image.thumbKey);
    },
  };
}

export type ImageFiles = ReturnType<typeof createImageFiles>;
