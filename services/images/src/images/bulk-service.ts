import type { Logger } from 'pino';
import type { CategoriesRepository } from '../categories/categories-repository';
import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
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
  async function each(ids: number[], done: string, act: (id: number) => Promise<void>): Promise<BulkOutcome> {
    const seen = new Set<number>();
    const results: BulkOutcome['results'] = [];
    for (const id of ids) {
      if (seen.has(id)) {
        results.push({ id, ok: false, msg: Messages.duplicateId });
        continue;
      }
      seen.add(id);
      try {
        await act(id);
        results.push({ id, ok: true, msg: done });
      } catch (error) {
        if (error instanceof AppError) {
          results.push({ id, ok: false, msg: error.message });
        } else if ((error as NodeJS.ErrnoException).code === 'ENOSPC' || (error as NodeJS.ErrnoException).code === 'EDQUOT') {
          deps.logger.error({ err: error, imageId: id }, 'storage full: one id of a bulk request was refused and undone');
          results.push({ id, ok: false, msg: Messages.storageFull });
        } else {
          deps.logger.error({ err: error, imageId: id }, 'unexpected fault on one id of a bulk request');
          results.push({ id, ok: false, msg: Messages.internalError });
        }
      }
    }
    const succeeded = results.filter((result) => result.ok).length;
    return { results, succeeded, failed: results.length - succeeded };
  }

  return {
    deleteMany: (user: UserRow, ids: number[]) => each(ids, Messages.deleted, (id) => deps.bin.delete(user, id)),
    restoreMany: (user: UserRow, ids: number[]) => each(ids, Messages.restored, (id) => deps.bin.restore(user, id)),
    purgeMany: (user: UserRow, ids: number[]) => each(ids, Messages.purged, (id) => deps.bin.purge(user, id)),

    /** Moves the user's images into one of the user's categories (`分类不存在` for the whole request otherwise). */
    async moveMany(user: UserRow, ids: number[], categoryId: number): Promise<BulkOutcome> {
      if (!(await deps.categories.findOwned(user.id, categoryId))) throw new AppError(Messages.categoryNotFound, 200);
      return each(ids, Messages.moved, async (id) => {
        if (!(await deps.images.moveToCategory(user.id, id, categoryId))) throw new AppError(Messages.imageNotFound, 200);
      });
    },
  };
}

export type BulkService = ReturnType<typeof createBulkService>;
