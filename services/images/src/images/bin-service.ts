import { AppError } from '../errors/app-error';
import type { UserRow } from '../users/users-repository';
import type { ImageFiles } from './image-files';
import type { ImagesRepository, Move } from './images-repository';
import type { LinkSigner } from './link-signer';

/** Whose image it is: the user's own request, or an admin acting through the owner's path. */
type Owner = Pick<UserRow, 'id'>;

const DAY_MS = 24 * 60 * 60 * 1000;
const PURGE_BATCH = 500;

export const TO_BIN: Move = { from: 'stored', via: 'binning', to: 'binned' };
export const FROM_BIN: Move = { from: 'binned', via: 'restoring', to: 'stored' };

/**
 * Delete, restore and purge: each is commit (the row enters its step), file operation, commit. A
 * crash in between leaves the row in its step, and recovery (recovery-service.ts) finishes it.
 */
export function createBinService(deps: { images: ImagesRepository; files: ImageFiles; signer: LinkSigner; clock: () => Date; recycleRetentionDays: number }) {
  const { images, files } = deps;

  async function move(userId: number, id: number, step: Move, deletionNonce?: string | null, expiredAt?: Date): Promise<void> {
    const image = await images.startStep(id, step, { userId, deletionNonce, expiredAt });
    if (!image) throw new AppError('imageNotFound', 200);
    try {
      await files.place(image, step.to === 'binned' ? 'bin' : 'public');
    } catch (error) {
      // The rename did not happen: the file is where it was, so the row goes back too.
      await images.undoMove(id, step);
      throw error;
    }
    await images.finishMove(id, step, { expired: expiredAt !== undefined });
  }

  async function purgeImage(id: number, scope: { userId?: number; deletedBefore?: Date }): Promise<boolean> {
    const image = await images.startStep(id, { from: 'binned', via: 'purging' }, scope);
    if (!image) return false;
    // Should removal fail, the row stays purging (out of the bin list) and recovery finishes it.
    await files.removeAll(image);
    await images.deletePurged(image.id);
    return true;
  }

  /** Purges bin items deleted before `deletedBefore` (all of them when omitted), in batches. */
  async function purgeBinned(options: { deletedBefore?: Date; userId?: number } = {}): Promise<number> {
    let purged = 0;
    for (;;) {
      const ids = await images.findBinnedIds({ ...options, limit: PURGE_BATCH });
      if (ids.length === 0) return purged;
      // The age is checked again as each row enters its step: one restored and binned again since
      // the lookup is young again and stays.
      for (const id of ids) if (await purgeImage(id, { deletedBefore: options.deletedBefore })) purged += 1;
    }
  }

  return {
    /** Moves the image to the bin: its file leaves public/ so url and thumb_url answer 404. */
    delete(user: Owner, id: number): Promise<void> {
      return move(user.id, id, TO_BIN);
    },

    restore(user: Owner, id: number): Promise<void> {
      return move(user.id, id, FROM_BIN);
    },

    /**
     * The stored image a signed deletion link names (for its confirmation page); null for a bad link,
     * a link signed before the image was last restored, or an image no longer stored.
     */
    async imageForDeletionLink(id: number, sig: string): Promise<{ originalName: string } | null> {
      const image = await images.findById(id);
      if (!image || image.status !== 'stored' || !deps.signer.deletion.verify(id, image.deletionNonce, sig)) return null;
      return { originalName: image.originalName };
    },

    /** A confirmed deletion link: the image goes to its owner's bin (from where the owner can restore it). */
    async deleteByLink(id: number, sig: string): Promise<boolean> {
      const image = await images.findById(id);
      if (!image || image.status !== 'stored' || !deps.signer.deletion.verify(id, image.deletionNonce, sig)) return false;
      try {
        // Only with the nonce just checked: a restore in between gave the image a new one, and this link is dead.
        await move(image.userId, id, TO_BIN, image.deletionNonce);
        return true;
      } catch (error) {
        if (error instanceof AppError && error.key === 'imageNotFound') return false;
        throw error;
      }
    },

    /** Permanently removes one image from the user's bin and frees its bytes. */
    async purge(user: Owner, id: number): Promise<void> {
      if (!(await purgeImage(id, { userId: user.id }))) throw new AppError('imageNotFound', 200);
    },

    purgeBinned,

    /**
     * The expiry job: moves every stored image whose expiry is at or before `now` into its owner's
     * bin, as the owner's delete would (the bin's retention and the quota apply as to any binned
     * image). An image whose owner changed or cleared its expiry since the lookup stays.
     */
    async binExpired(now: Date = deps.clock()): Promise<number> {
      let binned = 0;
      for (;;) {
        const due = await images.findExpired(now, PURGE_BATCH);
        let moved = 0;
        for (const { id, userId } of due) {
          try {
            await move(userId, id, TO_BIN, undefined, now);
            moved += 1;
          } catch (error) {
            if (!(error instanceof AppError && error.key === 'imageNotFound')) throw error;
          }
        }
        binned += moved;
        if (due.length < PURGE_BATCH || moved === 0) return binned;
      }
    },

    purgeExpired(): Promise<number> {
      return purgeBinned({ deletedBefore: new Date(deps.clock().getTime() - deps.recycleRetentionDays * DAY_MS) });
    },
  };
}

export type BinService = ReturnType<typeof createBinService>;
