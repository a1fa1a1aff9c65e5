import { z } from 'zod';
import { toolSchema } from '../catalog/importer';

/** The public form's fields, as typed. */
export interface SubmissionForm {
  name: string;
  url: string;
  category: string;
  description: string;
  contact: string;
}

export type SubmissionField = keyof SubmissionForm;
/** Why a field was refused: the page says it in its own language (site-text.ts). */
export type FieldProblem = 'required' | 'invalid' | 'tooLong' | 'unknownCategory' | 'duplicate';
export interface SubmissionFieldError {
  field: SubmissionField;
  problem: FieldProblem;
}

export const SUBMISSION_FIELDS: readonly SubmissionField[] = ['name', 'url', 'category', 'description', 'contact'];
/** Shorter than an editor may type: a visitor suggests, the editor completes. */
export const DESCRIPTION_MAX = 500;
export const CONTACT_MAX = 200;

// The importer's own rules for what a tool's name, URL and description may hold (length, control
// characters, http(s) only), so an approved submission never fails the tool form on them.
const rules = {
  name: toolSchema.shape.name,
  url: toolSchema.shape.url,
  description: toolSchema.shape.description.unwrap().max(DESCRIPTION_MAX),
  contact: z.string().trim().max(CONTACT_MAX).refine((value) => !/[\u0000-\u001f\u007f]/.test(value)),
};

/** The form's text fields (a repeated field counts as its first value; anything else is empty). */
export function submissionFormOf(body: unknown): SubmissionForm {
  const record = (body ?? {}) as Record<string, unknown>;
  const text = (name: string) => {
    const value = Array.isArray(record[name]) ? (record[name] as unknown[])[0] : record[name];
    return typeof value === 'string' ? value.slice(0, 6000) : '';
  };
  return { name: text('name'), url: text('url').trim(), category: text('category').trim(), description: text('description'), contact: text('contact') };
}

/** Checks the fields (not yet whether the category exists or the URL is new: those need the database). */
export function validateSubmission(form: SubmissionForm): { values: SubmissionForm; errors: SubmissionFieldError[] } {
  const errors: SubmissionFieldError[] = [];
  const values = { ...form };
  for (const field of ['name', 'url', 'description', 'contact'] as const) {
    const parsed = rules[field].safeParse(form[field]);
    if (parsed.success) values[field] = parsed.data;
    else if (form[field].trim() === '') errors.push({ field, problem: 'required' });
    else errors.push({ field, problem: parsed.error.issues.some((issue) => issue.code === 'too_big') ? 'tooLong' : 'invalid' });
  }
  if (form.category === '') errors.push({ field: 'category', problem: 'required' });
  return { values, errors: errors.sort((a, b) => SUBMISSION_FIELDS.indexOf(a.field) - SUBMISSION_FIELDS.indexOf(b.field)) };
}

/**
 * A URL as compared for duplicates: scheme and host case-insensitive (URL does that), no "www.", no
 * fragment, no trailing slash, http and https alike: https://www.Example.com/ is http://example.com.
 */
export function urlKey(url: string): string {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^www\./, '');
  const port = parsed.port ? `:${parsed.port}` : '';
  return `${host}${port}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`.toLowerCase();
}
