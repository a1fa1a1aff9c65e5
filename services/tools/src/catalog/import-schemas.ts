import { z } from 'zod';
import type { CategoryInput } from './catalog-repository';
import { catalogMessage, messageKey as m, messageOfIssue, type CatalogMessage } from './catalog-messages';

/**
 * The rules every way into the catalog shares (imports of every format, the admin's forms, the CLI).
 * A category's `parent` is its parent's slug (category-parents.ts holds the two-level rules). Each message is
 * a key of catalog-messages.ts: an issue's field and limit are its parameters, worded where it is shown.
 */
// Postgres text cannot hold NUL (one such row would abort the whole import's transaction), and a lone
// surrogate would be stored as U+FFFD: both are refused per row. One-line fields refuse every C0 control.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const isOneLineText = (value: string) => !CONTROL_CHARACTER.test(value) && !LONE_SURROGATE.test(value);
const isMultiLineText = (value: string) => !CONTROL_EXCEPT_LINE_BREAKS.test(value) && !LONE_SURROGATE.test(value);

const slugSchema = z
  .string({ error: m('required') })
  .trim()
  .min(1, m('required'))
  .max(100, m('tooLong'))
  // An all-digit slug is allowed (e.g. the SEO site 5118): detail lookups try the slug before the id.
  .regex(/^[a-z0-9][a-z0-9._-]*$/, m('slugFormat'));

const httpUrl = () =>
  z
    .string({ error: m('required') })
    .trim()
    .max(2000, m('tooLong'))
    .refine(isOneLineText, m('invalidCharacters'))
    .refine((value) => {
      try {
        const parsed = new URL(value);
        return parsed.protocol === 'http:' || parsed.protocol === 'https:';
      } catch {
        return false;
      }
    }, m('notHttpUrl'));

const tagListSchema = z
  .array(
    z.string({ error: m('tagNotString') }).trim().max(50, m('tagTooLong')).refine(isOneLineText, m('tagInvalidCharacters')),
    { error: m('tagsNotList') },
  )
  .transform((tags) => [...new Set(tags.filter((tag) => tag.length > 0))])
  .refine((tags) => tags.length <= 30, { error: m('tooManyTags'), params: { max: 30 } });

/** English name and description, optional ('' = not translated: the English pages show the Chinese text). */
const englishFields = (nameMax: number, descriptionMax: number) => ({
  name_en: z
    .string({ error: m('notString') })
    .trim()
    .max(nameMax, m('tooLong'))
    .refine(isOneLineText, m('invalidCharacters'))
    .default(''),
  description_en: z
    .string({ error: m('notString') })
    .trim()
    .max(descriptionMax, m('tooLong'))
    .refine(isMultiLineText, m('invalidCharacters'))
    .default(''),
});

export const toolSchema = z.object({
  slug: slugSchema,
  name: z
    .string({ error: m('required') })
    .trim()
    .min(1, m('required'))
    .max(200, m('tooLong'))
    .refine(isOneLineText, m('invalidCharacters')),
  description: z
    .string({ error: m('notString') })
    .trim()
    .max(5000, m('tooLong'))
    .refine(isMultiLineText, m('invalidCharacters'))
    .default(''),
  url: httpUrl(),
  icon: z.union([z.literal(''), httpUrl()], { error: m('iconNotUrl') }).default(''),
  category: z.string({ error: m('required') }).trim().min(1, m('required')).refine(isOneLineText, m('invalidCharacters')),
  tags: tagListSchema.default([]),
  is_featured: z.boolean({ error: m('notBoolean') }).default(false),
  ...englishFields(200, 5000),
  /** Absent: an existing tool keeps its place (a new one gets 0). */
  sort_order: z.number({ error: m('notInteger') }).int(m('notInteger')).optional(),
});

export const categorySchema = z.object({
  slug: slugSchema,
  name: z
    .string({ error: m('required') })
    .trim()
    .min(1, m('required'))
    .max(100, m('tooLong'))
    .refine(isOneLineText, m('invalidCharacters')),
  description: z
    .string({ error: m('notString') })
    .trim()
    .max(2000, m('tooLong'))
    .refine(isMultiLineText, m('invalidCharacters'))
    .default(''),
  icon: z.string({ error: m('notString') }).trim().max(500, m('tooLong')).refine(isOneLineText, m('invalidCharacters')).default(''),
  sort_order: z.number({ error: m('notInteger') }).int(m('notInteger')).default(0),
  ...englishFields(100, 2000),
  /** The parent's slug; '' (or absent) = a top-level category. */
  parent: z.string({ error: m('parentNotSlug') }).trim().max(100, m('tooLong')).default(''),
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

export function parseCategoryPatch(fields: CategoryPatch): { patch: CategoryPatch } | { reason: CatalogMessage } {
  const parsed = categoryPatchSchema.safeParse(fields);
  if (!parsed.success) return { reason: firstIssue(parsed.error) };
  return { patch: Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined)) as CategoryPatch };
}

export function firstIssue(error: z.ZodError): CatalogMessage {
  const issue = error.issues[0];
  return issue ? messageOfIssue(issue) : catalogMessage('invalidRow');
}

