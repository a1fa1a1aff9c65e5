import { z } from 'zod';
import type { CategoryInput } from './catalog-repository';

/**
 * The rules every way into the catalog shares (imports of every format, the admin's forms, the CLI).
 * A category's `parent` is its parent's slug (category-parents.ts holds the two-level rules).
 */
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
  /** Absent: an existing tool keeps its place (a new one gets 0). */
  sort_order: z.number({ error: 'sort_order must be an integer' }).int('sort_order must be an integer').optional(),
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

export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue?.message ?? 'invalid row';
}

