import type { Knex } from 'knex';

export interface CategoryRow {
  id: number;
  name: string;
  isDefault: boolean;
  imageCount: number;
  /** Every image's public page is on (by the album's opt-in). */
  pagesPublic: boolean;
  createdAt: Date;
}

export function createCategoriesRepository(db: Knex) {
  return {
    async findOwned(userId: number, categoryId: number): Promise<{ id: number } | null> {
      const row = await db('categories').where({ id: categoryId, user_id: userId }).first('id');
      return row ? { id: Number(row.id) } : null;
    },


    async listForUser(userId: number): Promise<CategoryRow[]> {
      const rows = await db('categories as c')
        .where('c.user_id', userId)
        .orderBy([{ column: 'c.is_default', order: 'desc' }, { column: 'c.id', order: 'asc' }])
        .select(
          'c.id',
          'c.name',
          'c.is_default',
          'c.created_at',
          'c.pages_public_at',
          db.raw(
            "(SELECT count(*) FROM images i WHERE i.user_id = c.user_id AND i.category_id = c.id AND i.status = 'stored') AS image_count",
          ),
        );
      return rows.map((row: Record<string, unknown>) => ({
        id: Number(row.id),
        name: String(row.name),
        isDefault: Boolean(row.is_default),
        imageCount: Number(row.image_count),
        pagesPublic: row.pages_public_at !== null && row.pages_public_at !== undefined,
        createdAt: row.created_at as Date,
      }));
    },

    /** 'missing' when it is not the user's category, 'taken' when the user has another one of that name. */
    async rename(userId: number, categoryId: number, name: string): Promise<'renamed' | 'missing' | 'taken'> {
      const clash = await db('categories').where({ user_id: userId, name }).whereNot('id', categoryId).first('id');
      if (clash) return 'taken';
      try {
        const updated = await db('categories').where({ id: categoryId, user_id: userId }).update({ name });
        return updated > 0 ? 'renamed' : 'missing';
      } catch (error) {
        // A concurrent rename or create took the name between the check and the update.
        if ((error as { code?: string }).code === '23505') return 'taken';
        throw error;
      }
    },

    /**
     * Deletes one of the user's categories after moving its images (stored, binned, or mid-step) to
     * the user's default category, in one transaction. 'default' for the default category itself.
     */
    async deleteMovingImages(userId: number, categoryId: number): Promise<{ outcome: 'deleted'; moved: number } | { outcome: 'missing' | 'default' }> {
      return db.transaction(async (trx) => {
        const category = await trx('categories').where({ id: categoryId, user_id: userId }).forUpdate().first('id', 'is_default');
        if (!category) return { outcome: 'missing' as const };
        if (category.is_default) return { outcome: 'default' as const };
        const fallback = await trx('categories').where({ user_id: userId, is_default: true }).first('id');
        const moved = await trx('images').where({ user_id: userId, category_id: categoryId }).update({ category_id: fallback.id });
        await trx('categories').where({ id: categoryId }).delete();
        return { outcome: 'deleted' as const, moved: Number(moved) };
      });
    },

    /** Returns null when the user already has a category with that name. */
    async create(userId: number, name: string): Promise<{ id: number } | null> {
      const rows = await db('categories')
        .insert({ user_id: userId, name, is_default: false })
        .onConflict(['user_id', 'name'])
        .ignore()
        .returning('id');
      const first = rows[0] as { id: unknown } | undefined;
      return first ? { id: Number(first.id) } : null;
    },
  };
}

export type CategoriesRepository = ReturnType<typeof createCategoriesRepository>;
