import { AppError } from '../errors/app-error';
import { Messages } from '../errors/messages';
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
          create_time: deps.formatTime(row.createdAt),
        })),
      };
    },

    /** `name` is already a valid category name (see category-name.ts). */
    async create(user: UserRow, name: string) {
      const created = await deps.categories.create(user.id, name);
      if (!created) throw new AppError(Messages.categoryExists, 200);
      return { id: created.id, name };
    },
  };
}

export type CategoriesService = ReturnType<typeof createCategoriesService>;
