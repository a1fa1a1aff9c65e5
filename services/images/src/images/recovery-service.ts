import type { Logger } from 'pino';
import type { Storage } from '../storage/storage';
import { FROM_BIN, TO_BIN } from './bin-service';
import type { ImageFiles } from './image-files';
import type { ImagesRepository } from './images-repository';

/** An upload's files take seconds to write; one pending this long belongs to a process that died. */
export const STALLED_UPLOAD_MS = 60 * 60 * 1000;
/** The other steps are a rename or an unlink; finishing one twice is harmless, so a minute is enough. */
export const STALLED_STEP_MS = 60 * 1000;
const BATCH = 200;

/**
 * Finishes what a dead process left between two commits: a pending upload is undone (files removed,
 * row dropped, bytes refunded); a move is completed (the file placed where the step leads, the row
 * at rest); a purge is completed. Afterwards no file is without its row and no row without its file.
 */
export function createRecoveryService(deps: { images: ImagesRepository; files: ImageFiles; storage: Storage; logger: Logger; clock: () => Date }) {
  const { images, files, storage, logger } = deps;
  return {
    /**
     * Removes the copies a storage migration left on an image's old backend (it moved the image,
     * then stopped before removing them). Copies on a backend that is no longer configured stay,
     * and are counted out of the result.
     */
    async removeStorageLeftovers(): Promise<number> {
      let removed = 0;
      for (let afterId = 0; ; ) {
        const batch = await images.findLeftovers({ afterId, limit: BATCH });
        if (batch.length === 0) return removed;
        for (const image of batch) {
          afterId = image.id;
          if (!image.storageLeftover || !storage.isConfigured(image.storageLeftover)) continue;
          await files.removeFrom(storage.storeFor(image.storageLeftover), image);
          await images.clearLeftover(image.id, image.storageLeftover);
          removed += 1;
        }
      }
    },


    async recoverStalled(): Promise<number> {
      const now = deps.clock().getTime();
      const seen = new Set<number>();
      let recovered = 0;
      for (;;) {
        const stalled = (
          await images.findStalled({ uploadsBefore: new Date(now - STALLED_UPLOAD_MS), stepsBefore: new Date(now - STALLED_STEP_MS), limit: BATCH })
        ).filter((image) => !seen.has(image.id));
        // A row still there after its turn moved on under us (a live request took it); it is not ours to loop on.
        if (stalled.length === 0) return recovered;
        for (const image of stalled) {
          seen.add(image.id);
          switch (image.status) {
            case 'pending':
              await files.removeAll(image);
              await images.dropUpload(image.id);
              break;
            case 'binning':
              await files.place(image, 'bin');
              await images.finishMove(image.id, TO_BIN);
              break;
            case 'restoring':
              await files.place(image, 'public');
              await images.finishMove(image.id, FROM_BIN);
              break;
            case 'purging':
              await files.removeAll(image);
              await images.deletePurged(image.id);
              break;
            default:
              continue;
          }
          logger.info({ imageId: image.id, step: image.status }, 'recovered an image step a stopped process left unfinished');
          recovered += 1;
        }
      }
    },
  };
}

export type RecoveryService = ReturnType<typeof createRecoveryService>;
