import { AppError } from '../errors/app-error';
import type { UserRow } from '../users/users-repository';
import type { CategoriesRepository } from './categories-repository';

export function createCategoriesService(deps: { categories: CategoriesRepository; formatTime: (date: Date) => string }) {
  return {
    async list(user: UserRow) {
      const rows = await deps.categories.listForUser(user.id);
      return {
        list: rows.map((row) => ({
          id: row.id,
          name: row.name,
          is_default: row.isDefault,
          image_count: row.imageCount,
          pages_public: row.pagesPublic,
          create_time: deps.formatTime(row.createdAt),
        })),
      };
    },

    async rename(user: UserRow, categoryId: number, name: string) {
      const outcome = await deps.categories.rename(user.id, categoryId, name);
      if (outcome === 'missing') throw new AppError('categoryNotFound', 200);
      if (outcome === 'taken') throw new AppError('categoryExists', 200);
      return { id: categoryId, name };
    },

    /** Deletes the category; its images go to the default category in the same transaction. */
    async delete(user: UserRow, categoryId: number) {
      const result = await deps.categories.deleteMovingImages(user.id, categoryId);
      if (result.outcome !== 'deleted') throw new AppError(result.outcome === 'default' ? 'defaultCategoryLocked' : 'categoryNotFound', 200);
      return { id: categoryId, moved: result.moved };
    },

    /** `name` is already a valid category name (see category-name.ts). */
    async create(user: UserRow, name: string) {
      const created = await deps.categories.create(user.id, name);
      if (!created) throw new AppError('categoryExists', 200);
      return { id: created.id, name };
    },
  };
}

export type CategoriesService = ReturnType<typeof createCategoriesService>;
