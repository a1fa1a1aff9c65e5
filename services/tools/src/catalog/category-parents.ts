import type { CategoryLevel } from './catalog-repository';
import { catalogMessage, type CatalogMessage } from './catalog-messages';

/**
 * Categories have two levels: a top-level category may hold subcategories, a subcategory may not. One rule
 * for the import and the admin form, checked against the tree as it stands in the writing transaction:
 * a parent must exist and be top-level itself, and a category with subcategories stays top-level (so no
 * chain, and so no cycle, can form).
 */
export function resolveParent(levels: ReadonlyMap<string, CategoryLevel>, slug: string, parentSlug: string): { parentId: number | null } | { reason: CatalogMessage } {
  if (parentSlug === '') return { parentId: null };
  if (parentSlug === slug) return { reason: catalogMessage('ownParent') };
  const parent = levels.get(parentSlug);
  if (!parent) return { reason: catalogMessage('unknownParent', { parent: parentSlug }) };
  if (parent.parentId !== null) return { reason: catalogMessage('parentIsSubcategory', { parent: parentSlug }) };
  const self = levels.get(slug);
  if (self && self.children > 0) return { reason: catalogMessage('hasSubcategories', { slug, count: self.children }) };
  return { parentId: parent.id };
}

/**
 * Each top-level category followed by its subcategories, both in the given order. A category whose parent
 * is missing or not top-level (which the rules above never let happen) is listed as a top-level one, not lost.
 */
export function inTreeOrder<T extends { id: number; parent_id: number | null }>(categories: T[]): T[] {
  const topIds = new Set(categories.filter((category) => category.parent_id === null).map((category) => category.id));
  const tops = categories.filter((category) => category.parent_id === null || !topIds.has(category.parent_id));
  return tops.flatMap((top) => [top, ...(topIds.has(top.id) ? categories.filter((category) => category.parent_id === top.id) : [])]);
}

/** A category's subcategories, in the given order. */
export function subcategoriesOf<T extends { parent_id: number | null }>(categories: T[], id: number): T[] {
  return categories.filter((category) => category.parent_id === id);
}
