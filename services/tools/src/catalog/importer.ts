import { z } from 'zod';
import type { CatalogRepository, CategoryInput } from './catalog-repository';
import { resolveParent } from './category-parents';
import { parseCsvSource, parseJsonSource } from './import-sources';

export { CSV_HEADER, ImportFormatError } from './import-sources';

export interface RejectedRow {
  /** 1-based: the index in `tools` (JSON) or the line the row starts on (CSV, header = line 1). */
  row: number;
  slug: string | null;
  reason: string;
}

export interface ImportReport {
  categories: { created: number; updated: number; unchanged: number; rejected: RejectedRow[] };
  tools: { created: number; updated: number; unchanged: number; rejected: RejectedRow[] };
}

// Postgres text cannot hold NUL (one such row would abort the whole import's transaction), and a lone
// surrogate would be stored as U+FFFD: both are refused per row. One-line fields refuse every C0 control.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const isOneLineText = (value: string) => !CONTROL_CHARACTER.test(value) && !LONE_SURROGATE.test(value);
const isMultiLineText = (value: string) => !CONTROL_EXCEPT_LINE_BREAKS.test(value) && !LONE_SURROGATE.test(value);
const invalidCharacters = (label: string) => `${label} contains control characters or invalid Unicode`;

const slugSchema = z
  .string({ error: 'slug is required' })
  .trim()
  .min(1, 'slug is required')
  .max(100, 'slug is longer than 100 characters')
  // An all-digit slug is allowed (e.g. the SEO site 5118): detail lookups try the slug before the id.
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'slug must be lowercase letters, digits, ".", "_" or "-"');

const httpUrl = (label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .max(2000, `${label} is longer than 2000 characters`)
    .refine(isOneLineText, invalidCharacters(label))
    .refine((value) => {
      try {
        const parsed = new URL(value);
        return parsed.protocol === 'http:' || parsed.protocol === 'https:';
      } catch {
        return false;
      }
    }, `${label} is not a valid http(s) URL`);

const tagListSchema = z
  .array(
    z.string({ error: 'tags must be strings' }).trim().max(50, 'a tag is longer than 50 characters').refine(isOneLineText, invalidCharacters('a tag')),
    { error: 'tags must be a list of strings' },
  )
  .transform((tags) => [...new Set(tags.filter((tag) => tag.length > 0))])
  .refine((tags) => tags.length <= 30, 'more than 30 tags');

/** English name and description, optional ('' = not translated: the English pages show the Chinese text). */
const englishFields = (nameMax: number, descriptionMax: number) => ({
  name_en: z
    .string({ error: 'name_en must be a string' })
    .trim()
    .max(nameMax, `name_en is longer than ${nameMax} characters`)
    .refine(isOneLineText, invalidCharacters('name_en'))
    .default(''),
  description_en: z
    .string({ error: 'description_en must be a string' })
    .trim()
    .max(descriptionMax, `description_en is longer than ${descriptionMax} characters`)
    .refine(isMultiLineText, invalidCharacters('description_en'))
    .default(''),
});

export const toolSchema = z.object({
  slug: slugSchema,
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required')
    .max(200, 'name is longer than 200 characters')
    .refine(isOneLineText, invalidCharacters('name')),
  description: z
    .string({ error: 'description must be a string' })
    .trim()
    .max(5000, 'description is longer than 5000 characters')
    .refine(isMultiLineText, invalidCharacters('description'))
    .default(''),
  url: httpUrl('url'),
  icon: z.union([z.literal(''), httpUrl('icon')], { error: 'icon must be empty or an http(s) URL' }).default(''),
  category: z.string({ error: 'category is required' }).trim().min(1, 'category is required').refine(isOneLineText, invalidCharacters('category')),
  tags: tagListSchema.default([]),
  is_featured: z.boolean({ error: 'is_featured must be true or false' }).default(false),
  ...englishFields(200, 5000),
});

export const categorySchema = z.object({
  slug: slugSchema,
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required')
    .max(100, 'name is longer than 100 characters')
    .refine(isOneLineText, invalidCharacters('name')),
  description: z
    .string({ error: 'description must be a string' })
    .trim()
    .max(2000, 'description is longer than 2000 characters')
    .refine(isMultiLineText, invalidCharacters('description'))
    .default(''),
  icon: z.string({ error: 'icon must be a string' }).trim().max(500, 'icon is longer than 500 characters').refine(isOneLineText, invalidCharacters('icon')).default(''),
  sort_order: z.number({ error: 'sort_order must be an integer' }).int('sort_order must be an integer').default(0),
  ...englishFields(100, 2000),
  /** The parent's slug; '' (or absent) = a top-level category. */
  parent: z.string({ error: 'parent must be a category slug' }).trim().max(100, 'parent is longer than 100 characters').default(''),
});

/** The fields `category:edit` may change, checked with the same rules as an import; unset fields stay as they are. */
// unwrap(): without their import defaults, so that an absent field stays absent instead of becoming ''.
const categoryPatchSchema = z.object({
  name: categorySchema.shape.name.optional(),
  description: categorySchema.shape.description.unwrap().optional(),
  icon: categorySchema.shape.icon.unwrap().optional(),
  sort_order: categorySchema.shape.sort_order.unwrap().optional(),
  name_en: categorySchema.shape.name_en.unwrap().optional(),
  description_en: categorySchema.shape.description_en.unwrap().optional(),
});

export type CategoryPatch = Partial<Omit<CategoryInput, 'slug' | 'parent_id'>>;

export function parseCategoryPatch(fields: CategoryPatch): { patch: CategoryPatch } | { reason: string } {
  const parsed = categoryPatchSchema.safeParse(fields);
  if (!parsed.success) return { reason: firstIssue(parsed.error) };
  return { patch: Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined)) as CategoryPatch };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue?.message ?? 'invalid row';
}

export type ImportFormat = 'json' | 'csv';

export function detectFormat(fileName: string): ImportFormat | undefined {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  return undefined;
}

/**
 * Imports categories and tools, idempotent by slug (existing rows are updated, visit counts kept; rows
 * that already hold the imported values are left alone and counted as unchanged).
 * Invalid rows are reported and skipped; everything valid is written in one transaction.
 */
export async function importCatalog(repository: CatalogRepository, text: string, format: ImportFormat): Promise<ImportReport> {
  const source = format === 'json' ? parseJsonSource(text) : parseCsvSource(text);
  const report: ImportReport = {
    categories: { created: 0, updated: 0, unchanged: 0, rejected: [] },
    tools: { created: 0, updated: 0, unchanged: 0, rejected: [] },
  };

  return repository.transaction(async (trx) => {
    const seenCategorySlugs = new Set<string>();
    const valid: { row: number; category: z.infer<typeof categorySchema> }[] = [];
    for (const { row, fields } of source.categories) {
      const slugGuess = typeof fields.slug === 'string' ? fields.slug : null;
      if (fields.__notAnObject) {
        report.categories.rejected.push({ row, slug: null, reason: 'category must be an object' });
        continue;
      }
      const parsed = categorySchema.safeParse(fields);
      if (!parsed.success) {
        report.categories.rejected.push({ row, slug: slugGuess, reason: firstIssue(parsed.error) });
        continue;
      }
      if (seenCategorySlugs.has(parsed.data.slug)) {
        report.categories.rejected.push({ row, slug: parsed.data.slug, reason: `duplicate category slug "${parsed.data.slug}" in this file` });
        continue;
      }
      seenCategorySlugs.add(parsed.data.slug);
      valid.push({ row, category: parsed.data });
    }
    if (valid.length > 0) await trx.lockCategoryTree();
    // Top-level categories first, so a subcategory may come before its parent in the file.
    const ordered = [...valid.filter((entry) => entry.category.parent === ''), ...valid.filter((entry) => entry.category.parent !== '')];
    for (const { row, category } of ordered) {
      const { parent, ...fields } = category;
      const resolved = resolveParent(await trx.categoryLevels(), category.slug, parent);
      if ('reason' in resolved) {
        report.categories.rejected.push({ row, slug: category.slug, reason: resolved.reason });
        continue;
      }
      const outcome = await trx.upsertCategory({ ...fields, parent_id: resolved.parentId });
      report.categories[outcome] += 1;
    }

    const categoryIds = await trx.categoryIdsBySlug();
    const seenToolSlugs = new Set<string>();
    for (const { row, fields } of source.tools) {
      const slugGuess = typeof fields.slug === 'string' && fields.slug.trim() !== '' ? fields.slug.trim() : null;
      if (fields.__notAnObject) {
        report.tools.rejected.push({ row, slug: null, reason: 'tool must be an object' });
        continue;
      }
      if (typeof fields.__badColumns === 'string') {
        report.tools.rejected.push({ row, slug: slugGuess, reason: fields.__badColumns });
        continue;
      }
      const parsed = toolSchema.safeParse(fields);
      if (!parsed.success) {
        report.tools.rejected.push({ row, slug: slugGuess, reason: firstIssue(parsed.error) });
        continue;
      }
      const tool = parsed.data;
      if (seenToolSlugs.has(tool.slug)) {
        report.tools.rejected.push({ row, slug: tool.slug, reason: `duplicate slug "${tool.slug}" in this file` });
        continue;
      }
      const categoryId = categoryIds.get(tool.category);
      if (categoryId === undefined) {
        report.tools.rejected.push({ row, slug: tool.slug, reason: `unknown category "${tool.category}"` });
        continue;
      }
      seenToolSlugs.add(tool.slug);
      const outcome = await trx.upsertTool({
        slug: tool.slug,
        name: tool.name,
        description: tool.description,
        url: tool.url,
        icon: tool.icon,
        category_id: categoryId,
        tags: tool.tags,
        is_featured: tool.is_featured,
        name_en: tool.name_en,
        description_en: tool.description_en,
      });
      report.tools[outcome] += 1;
    }
    return report;
  });
}
