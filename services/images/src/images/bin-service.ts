import type { Logger } from 'pino';
import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
import type { FileStorage, StorageArea } from '../storage/file-storage';
import type { UserRow } from '../users/users-repository';
import type { ImageRow, ImagesRepository } from './images-repository';

const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_BATCH = 500;

export function createBinService(deps: { images: ImagesRepository; storage: FileStorage; logger: Logger; clock: () => Date; recycleRetentionDays: number }) {
  const { images, storage, logger } = deps;

  /**
   * Flips the row (`flip` returns null when the id is not the user's image in the expected state) and
   * moves its file between areas in the same transaction: if the move fails, the row stays as it was.
   */
  async function moveImage(
    flip: (moveFile: (image: ImageRow) => Promise<void>) => Promise<ImageRow | null>,
    from: StorageArea,
    to: StorageArea,
  ): Promise<void> {
    let moved: string | undefined;
    try {
      const image = await flip(async (row) => {
        try {
          await storage.move(from, to, row.storageKey);
          moved = row.storageKey;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          logger.warn({ imageId: row.id, from }, 'file already missing while moving it');
        }
      });
      if (!image) throw new AppError(Messages.imageNotFound, 200);
    } catch (error) {
      if (moved && !(error instanceof AppError)) await storage.move(to, from, moved).catch(() => undefined);
      throw error;
    }
  }

  async function purgeImage(id: number, options: { userId?: number; deletedBefore?: Date }): Promise<boolean> {
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
      const ids = await images.findBinnedIds({ ...options, limit: PURGE_BATCH });
      if (ids.length === 0) return purged;
      // The age is checked again as each row is deleted: one restored and binned again since the
      // lookup is young again and stays.
      for (const id of ids) if (await purgeImage(id, { deletedBefore: options.deletedBefore })) purged += 1;
    }
  }

  return {
    /** Moves the image to the bin: its file leaves public/ so url and thumb_url answer 404. */
    delete(user: UserRow, id: number): Promise<void> {
      return moveImage((moveFile) => images.bin(user.id, id, moveFile), 'public', 'bin');
    },

    restore(user: UserRow, id: number): Promise<void> {
      return moveImage((moveFile) => images.restore(user.id, id, moveFile), 'bin', 'public');
    },

    /** Permanently removes one image from the user's bin and frees its bytes. */
    async purge(user: UserRow, id: number): Promise<void> {
      if (!(await purgeImage(id, { userId: user.id }))) throw new AppError(Messages.imageNotFound, 200);
    },

    purgeBinned,

    purgeExpired(): Promise<number> {
      return purgeBinned({ deletedBefore: new Date(deps.clock().getTime() - deps.recycleRetentionDays * DAY_MS) });
    },
  };
}

export type BinService = ReturnType<typeof createBinService>;
