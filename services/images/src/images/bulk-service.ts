import type { Logger } from 'pino';
import type { CategoriesRepository } from '../categories/categories-repository';
import { AppError } from '../errors/app-error';
import { messageText, type MessageKey } from '../errors/messages';
import type { UserRow } from '../users/users-repository';
import type { BinService } from './bin-service';
import type { ImagesRepository } from './images-repository';

export const BULK_MAX_IDS = 1000;

export interface BulkOutcome {
  /** One entry per id, in the order given. */
  results: Array<{ id: number; ok: boolean; msg: string }>;
  succeeded: number;
  failed: number;
}

/**
 * Many ids in one request. Each id goes through exactly the path a single request takes (so quota and
 * bin stay exact under concurrency), one after another; the answer says what happened to each.
 */
export function createBulkService(deps: { bin: BinService; images: ImagesRepository; categories: CategoriesRepository; logger: Logger }) {
  async function each(ids: number[], done: MessageKey, act: (id: number) => Promise<void>): Promise<BulkOutcome> {
    const seen = new Set<number>();
    const outcomes: Array<{ id: number; ok: boolean; outcome: MessageKey }> = [];
    for (const id of ids) {
      if (seen.has(id)) {
        outcomes.push({ id, ok: false, outcome: 'duplicateId' });
        continue;
      }
      seen.add(id);
      try {
        await act(id);
        outcomes.push({ id, ok: true, outcome: done });
      } catch (error) {
        if (error instanceof AppError) {
          outcomes.push({ id, ok: false, outcome: error.key });
        } else if ((error as NodeJS.ErrnoException).code === 'ENOSPC' || (error as NodeJS.ErrnoException).code === 'EDQUOT') {
          deps.logger.error({ err: error, imageId: id }, 'storage full: one id of a bulk request was refused and undone');
          outcomes.push({ id, ok: false, outcome: 'storageFull' });
        } else {
          deps.logger.error({ err: error, imageId: id }, 'unexpected fault on one id of a bulk request');
          outcomes.push({ id, ok: false, outcome: 'internalError' });
        }
      }
    }
    // Each id's outcome is read as the text its single request would answer.
    const results = outcomes.map(({ id, ok, outcome }) => ({ id, ok, msg: messageText(outcome) }));
    const succeeded = results.filter((result) => result.ok).length;
    return { results, succeeded, failed: results.length - succeeded };
  }

  /** The owner of an image at rest, for an admin acting on anyone's image through the owner's own path. */
  async function ownerOf(id: number): Promise<{ id: number; status: string }> {
    const image = await deps.images.findById(id);
    if (!image || (image.status !== 'stored' && image.status !== 'binned')) throw new AppError('imageNotFound', 200);
    return { id: image.userId, status: image.status };
  }

  return {
    deleteMany: (user: UserRow, ids: number[]) => each(ids, 'deleted', (id) => deps.bin.delete(user, id)),
    restoreMany: (user: UserRow, ids: number[]) => each(ids, 'restored', (id) => deps.bin.restore(user, id)),
    purgeMany: (user: UserRow, ids: number[]) => each(ids, 'purged', (id) => deps.bin.purge(user, id)),

    /** An admin's bin of anyone's images: each as its owner's delete. */
    binAnyones: (ids: number[]) => each(ids, 'deleted', async (id) => deps.bin.delete(await ownerOf(id), id)),

    /** An admin's purge of anyone's images, stored or binned: a stored one is binned first, each as its owner's delete and purge. */
    purgeAnyones: (ids: number[]) =>
      each(ids, 'purged', async (id) => {
        const owner = await ownerOf(id);
        if (owner.status === 'stored') await deps.bin.delete(owner, id);
        await deps.bin.purge(owner, id);
      }),

    /** Moves the user's images into one of the user's categories (`分类不存在` for the whole request otherwise). */
    async moveMany(user: UserRow, ids: number[], categoryId: number): Promise<BulkOutcome> {
      if (!(await deps.categories.findOwned(user.id, categoryId))) throw new AppError('categoryNotFound', 200);
      return each(ids, 'moved', async (id) => {
        if (!(await deps.images.moveToCategory(user.id, id, categoryId))) throw new AppError('imageNotFound', 200);
      });
    },
  };
}

export type BulkService = ReturnType<typeof createBulkService>;
