import type { CatalogRepository } from './catalog-repository';
import type { CategoryPatch } from './importer';
import { refreshSearchDocuments } from './search-index';

/**
 * Changes some fields of a category (already checked by parseCategoryPatch). A new name is part of every
 * one of its tools' search documents: they are rewritten in the same transaction. False when no category
 * has this slug.
 */
export async function editCategory(catalog: CatalogRepository, slug: string, patch: CategoryPatch): Promise<boolean> {
  return catalog.transaction(async (trx) => {
    const categoryId = await trx.updateCategory(slug, patch);
    if (categoryId === undefined) return false;
    if (patch.name !== undefined) await refreshSearchDocuments(trx, { categoryIds: [categoryId] });
    return true;
  });
}
