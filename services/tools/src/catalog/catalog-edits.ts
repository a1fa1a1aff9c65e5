import type { Knex } from 'knex';
import { inTreeOrder } from './category-parents';

/** A tool as the admin edits it (ids, not names; the editor-set sort order). */
export interface EditableTool {
  id: number;
  slug: string;
  name: string;
  description: string;
  name_en: string;
  description_en: string;
  url: string;
  icon: string;
  category_id: number;
  category_slug: string;
  category_name: string;
  category_name_en: string;
  tags: string[];
  is_featured: boolean;
  sort_order: number;
  visits: number;
  updated_at: Date;
}

export interface EditableCategory {
  id: number;
  slug: string;
  name: string;
  description: string;
  name_en: string;
  description_en: string;
  icon: string;
  sort_order: number;
  parent_id: number | null;
  parent_slug: string | null;
  tool_count: number;
}

const toolColumns = [
  't.id', 't.slug', 't.name', 't.description', 't.name_en', 't.description_en', 't.url', 't.icon', 't.category_id', 'c.slug as category_slug',
  'c.name as category_name', 'c.name_en as category_name_en', 't.tags', 't.is_featured', 't.sort_order', 't.visits', 't.updated_at',
];

function toEditableCategory(row: Record<string, unknown>): EditableCategory {
  return {
    ...(row as unknown as EditableCategory),
    id: Number(row.id),
    parent_id: row.parent_id === null || row.parent_id === undefined ? null : Number(row.parent_id),
    parent_slug: (row.parent_slug as string | null) ?? null,
    tool_count: Number(row.tool_count),
  };
}

function toEditable(row: Record<string, unknown>): EditableTool {
  return { ...(row as unknown as EditableTool), id: Number(row.id), visits: Number(row.visits), tags: (row.tags as string[]) ?? [] };
}

/**
 * The admin's own reads and the writes the import has no words for (renaming a slug, a tool's sort order,
 * deleting); everything else an editor saves goes through the import's upserts (catalog-repository.ts).
 * Every write here fires the catalog revision trigger, as the import's do.
 */
export function createCatalogEdits(db: Knex) {
  const categoriesQuery = () =>
    db('categories as c')
      .leftJoin('categories as p', 'p.id', 'c.parent_id')
      .select('c.id', 'c.slug', 'c.name', 'c.description', 'c.name_en', 'c.description_en', 'c.icon', 'c.sort_order', 'c.parent_id', 'p.slug as parent_slug')
      .select(db.raw('(SELECT count(*) FROM tools t WHERE t.category_id = c.id) AS tool_count'));
  return {
    /** Tools in the category order, or most visited first (`sort: 'visits'`); with the matching count and their visits in total. */
    async listTools(filter: { categoryId?: number; query?: string; sort?: 'visits' }, offset: number, limit: number): Promise<{ tools: EditableTool[]; total: number; totalVisits: number }> {
      const base = db('tools as t').join('categories as c', 'c.id', 't.category_id');
      if (filter.categoryId !== undefined) base.where('t.category_id', filter.categoryId);
      if (filter.query) {
        const like = `%${filter.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        base.where((where) => where.whereILike('t.name', like).orWhereILike('t.name_en', like).orWhereILike('t.slug', like));
      }
      const order =
        filter.sort === 'visits'
          ? [{ column: 't.visits', order: 'desc' }, { column: 't.id' }]
          : [{ column: 'c.sort_order' }, { column: 'c.id' }, { column: 't.sort_order' }, { column: 't.id' }];
      const [rows, count] = await Promise.all([
        base.clone().select(toolColumns).orderBy(order).offset(offset).limit(limit),
        base.clone().count({ count: '*' }).sum({ visits: 't.visits' }).first(),
      ]);
      return { tools: rows.map(toEditable), total: Number(count?.count ?? 0), totalVisits: Number(count?.visits ?? 0) };
    },

    async findTool(id: number): Promise<EditableTool | undefined> {
      const row = await db('tools as t').join('categories as c', 'c.id', 't.category_id').select(toolColumns).where('t.id', id).first();
      return row ? toEditable(row) : undefined;
    },

    /** Categories in the site's order: each top-level category followed by its subcategories. */
    async listCategories(): Promise<EditableCategory[]> {
      const rows: Record<string, unknown>[] = await categoriesQuery().orderBy([{ column: 'c.sort_order' }, { column: 'c.id' }]);
      return inTreeOrder(rows.map(toEditableCategory));
    },

    async findCategory(id: number): Promise<EditableCategory | undefined> {
      const row = await categoriesQuery().where('c.id', id).first();
      return row ? toEditableCategory(row) : undefined;
    },

    /** A slug another tool holds fails with a unique violation. */
    async renameToolSlug(id: number, slug: string): Promise<void> {
      await db('tools').where({ id }).whereNot({ slug }).update({ slug, updated_at: db.fn.now() });
    },

    async renameCategorySlug(id: number, slug: string): Promise<void> {
      await db('categories').where({ id }).whereNot({ slug }).update({ slug, updated_at: db.fn.now() });
    },

    async setToolSortOrder(slug: string, sortOrder: number): Promise<void> {
      await db('tools').where({ slug }).whereNot({ sort_order: sortOrder }).update({ sort_order: sortOrder, updated_at: db.fn.now() });
    },

    async setFeatured(id: number, featured: boolean): Promise<boolean> {
      const found = await db('tools').where({ id }).first('id');
      if (!found) return false;
      await db('tools').where({ id }).whereNot({ is_featured: featured }).update({ is_featured: featured, updated_at: db.fn.now() });
      return true;
    },

    /** The deleted tool's slug, or undefined when no tool has this id (its search row goes with it: ON DELETE CASCADE). */
    async deleteTool(id: number): Promise<string | undefined> {
      const rows: { slug: string }[] = await db('tools').where({ id }).delete(['slug']);
      return rows[0]?.slug;
    },

    /**
     * Deletes a category that holds no tool and no subcategory, in one statement (a tool or subcategory added
     * meanwhile keeps it: the foreign keys refuse too). What it holds when it does not go; null when it is gone.
     */
    async deleteEmptyCategory(id: number): Promise<{ deleted: true } | { deleted: false; toolCount: number; subcategoryCount: number } | null> {
      const deleted = await db('categories')
        .where({ id })
        .whereNotExists(db('tools').where('category_id', id).select(db.raw('1')))
        .whereNotExists(db('categories as s').where('s.parent_id', id).select(db.raw('1')))
        .delete();
      if (deleted > 0) return { deleted: true };
      const category = await this.findCategory(id);
      if (!category) return null;
      const subcategories = await db('categories').where({ parent_id: id }).count<{ count: string }[]>({ count: '*' }).first();
      return { deleted: false, toolCount: category.tool_count, subcategoryCount: Number(subcategories?.count ?? 0) };
    },
  };
}

export type CatalogEdits = ReturnType<typeof createCatalogEdits>;
