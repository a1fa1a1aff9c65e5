import type { Knex } from 'knex';
import type { z } from 'zod';
import { createCatalogRepository } from './catalog-repository';
import { createCatalogEdits } from './catalog-edits';
import { resolveParent } from './category-parents';
import { categorySchema, toolSchema } from './importer';
import { catalogMessage, messageOfIssue, type CatalogMessage } from './catalog-messages';

/** What an editor's form sends: text fields as typed. */
export type FormFields = Record<string, string | undefined>;

/** A refused field: the message is worded where it is shown (the admin, in the editor's language). */
export interface FieldError {
  field: string;
  message: CatalogMessage;
}

export type SaveResult = { saved: true; id: number } | { saved: false; errors: FieldError[] } | { saved: false; notFound: true };

const UNIQUE_VIOLATION = '23505';

/** Refused before anything is written: the transaction rolls back, and the form shows `errors`. */
class Refused extends Error {
  constructor(readonly errors: FieldError[]) {
    super('refused');
  }
}

function fieldErrors(error: z.ZodError): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    if (seen.has(field)) continue;
    seen.add(field);
    errors.push({ field, message: messageOfIssue(issue) });
  }
  return errors;
}

/** An integer as typed ('' is 0); anything else is passed on as text, for the schema to name. */
function integerField(raw: string | undefined): number | string {
  const text = (raw ?? '').trim();
  if (text === '') return 0;
  return /^-?\d{1,9}$/.test(text) ? Number(text) : text;
}

/** Tags as an editor types them: separated by commas (either width), "|" or new lines. */
export function splitTags(raw: string | undefined): string[] {
  return (raw ?? '').split(/[,，|\n]/).map((tag) => tag.trim()).filter((tag) => tag !== '');
}

/**
 * The editors' writes to the catalog. Each is one transaction through the import's own validation
 * (toolSchema, categorySchema) and its upserts, so a tool saved in the
 * admin is stored exactly as the same row imported would be; a refused form stores nothing. The
 * revision trigger moves with every write; `changed` tells this process's caches at once (and is awaited:
 * the search index is rebuilt before the editor's answer, so the editor finds the change at once).
 */
export function createCatalogEditor(db: Knex, changed: () => void | Promise<void>) {
  async function write<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const result = await db.transaction(work);
    await changed();
    return result;
  }

  /** Runs `work`, turning a refusal or a slug taken meanwhile into the form's errors. */
  async function save(work: () => Promise<number | undefined>, slugTaken: FieldError): Promise<SaveResult> {
    try {
      const id = await work();
      return id === undefined ? { saved: false, notFound: true } : { saved: true, id };
    } catch (error) {
      if (error instanceof Refused) return { saved: false, errors: error.errors };
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return { saved: false, errors: [slugTaken] };
      throw error;
    }
  }

  return {
    /**
     * Creates a tool (id undefined) or replaces every field of tool `id`; its visits are kept. `alsoWrite` runs
     * in the same transaction with the tool's id (approving a submission): what it throws undoes the save too.
     */
    saveTool(id: number | undefined, form: FormFields, alsoWrite?: (trx: Knex.Transaction, toolId: number) => Promise<void>): Promise<SaveResult> {
      const parsed = toolSchema.safeParse({
        slug: form.slug ?? '',
        name: form.name ?? '',
        description: form.description ?? '',
        name_en: form.name_en ?? '',
        description_en: form.description_en ?? '',
        url: form.url ?? '',
        icon: (form.icon ?? '').trim(),
        category: form.category ?? '',
        tags: splitTags(form.tags),
        is_featured: form.is_featured === 'on' || form.is_featured === 'true',
      });
      const sortOrder = categorySchema.shape.sort_order.safeParse(integerField(form.sort_order));
      const errors = [...(parsed.success ? [] : fieldErrors(parsed.error)), ...(sortOrder.success ? [] : [{ field: 'sort_order', message: catalogMessage('notInteger', { field: 'sort_order' }) }])];
      if (!parsed.success || !sortOrder.success) return Promise.resolve({ saved: false, errors });
      const tool = parsed.data;
      const slugTaken = { field: 'slug', message: catalogMessage('toolSlugTaken', { slug: tool.slug }) };
      return save(
        () =>
          write(async (trx) => {
            const catalog = createCatalogRepository(trx);
            const edits = createCatalogEdits(trx);
            const categoryId = (await catalog.categoryIdsBySlug()).get(tool.category);
            if (categoryId === undefined) throw new Refused([{ field: 'category', message: catalogMessage('unknownCategory', { category: tool.category }) }]);
            if (id !== undefined) {
              if (!(await edits.findTool(id))) return undefined;
              await edits.renameToolSlug(id, tool.slug);
            }
            const outcome = await catalog.upsertTool({ ...tool, category_id: categoryId });
            // A new tool's slug must be free: an upsert that found it taken changed a tool that is not this one.
            if (id === undefined && outcome !== 'created') throw new Refused([slugTaken]);
            await edits.setToolSortOrder(tool.slug, sortOrder.data);
            const toolId = id ?? (await catalog.findTool({ slug: tool.slug }))!.id;
            await alsoWrite?.(trx, toolId);
            return toolId;
          }),
        slugTaken,
      );
    },

    async setFeatured(id: number, featured: boolean): Promise<boolean> {
      return write((trx) => createCatalogEdits(trx).setFeatured(id, featured));
    },

    async deleteTool(id: number): Promise<boolean> {
      return (await write((trx) => createCatalogEdits(trx).deleteTool(id))) !== undefined;
    },

    /** Creates a category (id undefined) or replaces every field of category `id`; a new name reaches its tools' search documents. */
    saveCategory(id: number | undefined, form: FormFields): Promise<SaveResult> {
      const parsed = categorySchema.safeParse({
        slug: form.slug ?? '',
        name: form.name ?? '',
        description: form.description ?? '',
        name_en: form.name_en ?? '',
        description_en: form.description_en ?? '',
        icon: form.icon ?? '',
        sort_order: integerField(form.sort_order),
        parent: form.parent ?? '',
      });
      if (!parsed.success) return Promise.resolve({ saved: false, errors: fieldErrors(parsed.error) });
      const { parent, ...category } = parsed.data;
      const slugTaken = { field: 'slug', message: catalogMessage('categorySlugTaken', { slug: category.slug }) };
      return save(
        () =>
          write(async (trx) => {
            const catalog = createCatalogRepository(trx);
            const edits = createCatalogEdits(trx);
            if (id !== undefined) {
              if (!(await edits.findCategory(id))) return undefined;
              await edits.renameCategorySlug(id, category.slug);
            }
            await catalog.lockCategoryTree();
            const resolved = resolveParent(await catalog.categoryLevels(), category.slug, parent);
            if ('reason' in resolved) throw new Refused([{ field: 'parent', message: resolved.reason }]);
            const outcome = await catalog.upsertCategory({ ...category, parent_id: resolved.parentId });
            if (id === undefined && outcome !== 'created') throw new Refused([slugTaken]);
            const savedId = (await catalog.categoryIdsBySlug()).get(category.slug)!;
            return savedId;
          }),
        slugTaken,
      );
    },

    /** Deletes an empty category; a category that holds tools or subcategories stays, and the answer says how many. */
    deleteCategory(id: number) {
      return write((trx) => createCatalogEdits(trx).deleteEmptyCategory(id));
    },
  };
}

export type CatalogEditor = ReturnType<typeof createCatalogEditor>;
