import type { Knex } from 'knex';
import { inTreeOrder } from './category-parents';

/** Every field an import can set, for lossless exports (visits, ids and timestamps are the service's own). */
export interface ExportedCategory {
  slug: string;
  name: string;
  description: string;
  icon: string;
  sort_order: number;
  name_en: string;
  description_en: string;
  /** The parent's slug; '' for a top-level category. */
  parent: string;
}

export interface ExportedTool {
  slug: string;
  name: string;
  description: string;
  url: string;
  icon: string;
  category: string;
  tags: string[];
  is_featured: boolean;
  sort_order: number;
  name_en: string;
  description_en: string;
}

export interface CatalogExport {
  categories: ExportedCategory[];
  tools: ExportedTool[];
}

export function createExportRepository(db: Knex) {
  return {
    /**
     * Categories in tree order (each top-level category, by sort_order then id, followed by its subcategories in
     * the same order), tools grouped by category in that order and in theirs within it. That is the order an import
     * creates them in (top-level categories first, then the rest in file order), so an export of the imported copy
     * lists them the same way whatever ids the copy got. One snapshot (a repeatable-read transaction), so a
     * concurrent edit never splits a tool from its category. */
    async readCatalog(): Promise<CatalogExport> {
      return db.transaction(
        async (trx) => {
          const categoryRows: (ExportedCategory & { id: number; parent_id: number | null })[] = await trx('categories as c')
            .leftJoin('categories as p', 'p.id', 'c.parent_id')
            .select('c.id', 'c.parent_id', 'c.slug', 'c.name', 'c.description', 'c.icon', 'c.sort_order', 'c.name_en', 'c.description_en', trx.raw("coalesce(p.slug, '') as parent"))
            .orderBy([{ column: 'c.sort_order' }, { column: 'c.id' }]);
          const categories = inTreeOrder(categoryRows.map((row) => ({ ...row, parent_id: row.parent_id === null ? null : Number(row.parent_id) }))).map(
            ({ id: _id, parent_id: _parentId, ...category }) => category,
          );
          const position = new Map(categories.map((category, index) => [category.slug, index]));
          const rows: (Omit<ExportedTool, 'sort_order'> & { sort_order: number | string })[] = await trx('tools as t')
            .join('categories as c', 'c.id', 't.category_id')
            .select('t.slug', 't.name', 't.description', 't.url', 't.icon', 'c.slug as category', 't.tags', 't.is_featured', 't.sort_order', 't.name_en', 't.description_en')
            .orderBy([{ column: 't.sort_order' }, { column: 't.id' }]);
          const tools = rows.map((row) => ({ ...row, sort_order: Number(row.sort_order) }));
          // A stable sort: within a category, tools keep the order the query gave them.
          tools.sort((a, b) => position.get(a.category)! - position.get(b.category)!);
          return { categories, tools };
        },
        { isolationLevel: 'repeatable read', readOnly: true },
      );
    },
  };
}
