import type { Knex } from 'knex';

/** Every field an import can set, for lossless exports (visits, ids and timestamps are the service's own). */
export interface ExportedCategory {
  slug: string;
  name: string;
  description: string;
  icon: string;
  sort_order: number;
  name_en: string;
  description_en: string;
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
     * Categories in their order, tools grouped by category in theirs: the order an import creates them in, so an
     * export of the imported copy lists them the same way. One snapshot (a repeatable-read transaction), so a concurrent edit never splits a tool from its category. */
    async readCatalog(): Promise<CatalogExport> {
      return db.transaction(
        async (trx) => {
          const categories: ExportedCategory[] = await trx('categories')
            .select('slug', 'name', 'description', 'icon', 'sort_order', 'name_en', 'description_en')
            .orderBy([{ column: 'sort_order' }, { column: 'id' }]);
          const rows: (Omit<ExportedTool, 'sort_order'> & { sort_order: number | string })[] = await trx('tools as t')
            .join('categories as c', 'c.id', 't.category_id')
            .select('t.slug', 't.name', 't.description', 't.url', 't.icon', 'c.slug as category', 't.tags', 't.is_featured', 't.sort_order', 't.name_en', 't.description_en')
            .orderBy([{ column: 'c.sort_order' }, { column: 'c.id' }, { column: 't.sort_order' }, { column: 't.id' }]);
          return { categories, tools: rows.map((row) => ({ ...row, sort_order: Number(row.sort_order) })) };
        },
        { isolationLevel: 'repeatable read', readOnly: true },
      );
    },
  };
}
