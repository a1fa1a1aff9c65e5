import type { CatalogRepository } from './catalog-repository';
import type { CategoryPatch } from './importer';

/**
 * Changes some fields of a category (already checked by parseCategoryPatch). A new name moves the catalog
 * revision (a trigger), so search indexes rebuild with it. False when no category has this slug.
 */
export async function editCategory(catalog: CatalogRepository, slug: string, patch: CategoryPatch): Promise<boolean> {
  return catalog.transaction(async (trx) => {
    const categoryId = await trx.updateCategory(slug, patch);
    if (categoryId === undefined) return false;
    return true;
  });
}
