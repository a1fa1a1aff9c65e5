import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { submissionFormOf, urlKey, validateSubmission, type SubmissionFieldError, type SubmissionForm } from './submission-form';
import { createSubmissionLimiter } from './submission-limiter';
import { createSubmissionsRepository } from './submissions-repository';

export type SubmitOutcome =
  | { kind: 'stored' }
  /** The honeypot was filled: nothing is stored, and the bot is told nothing. */
  | { kind: 'ignored' }
  | { kind: 'refused'; form: SubmissionForm; errors: SubmissionFieldError[] }
  | { kind: 'throttled'; retryAfterSeconds: number };

/** Another editor reviewed the submission first (thrown inside an approval's transaction, which it undoes). */
export class AlreadyReviewed extends Error {}

/** The name of the hidden field people leave empty and form-filling bots do not. */
export const HONEYPOT_FIELD = 'website';

/**
 * The address is kept as a digest only: enough to see that many submissions came from one place, not
 * the address itself in a table dump. (An IPv4 digest can be reversed by trying every address; it is a
 * reduction, not anonymity.)
 */
export const submitterHash = (address: string) => createHash('sha256').update(`tool-submission\0${address}`).digest('hex');

/** Visitors' suggestions: validation, duplicate check, the per-address limit, the queue. */
export function createSubmissionsService(db: Knex, options: { perHour?: number } = {}) {
  const repository = createSubmissionsRepository(db);
  const limiter = createSubmissionLimiter(db, options.perHour);

  return {
    repository,

    /**
     * Closes pending submission `id` as approved with tool `toolId`, inside the transaction that saved the tool
     * (CatalogEditor.saveTool's `alsoWrite`): if a reject got there first, AlreadyReviewed undoes the tool.
     */
    async closeApproved(trx: Knex.Transaction, id: number, toolId: number, editorId: number): Promise<void> {
      if (!(await createSubmissionsRepository(trx).review(id, { status: 'approved', toolId }, editorId))) throw new AlreadyReviewed();
    },

    async submit(body: unknown, address: string): Promise<SubmitOutcome> {
      const raw = (body ?? {}) as Record<string, unknown>;
      if (typeof raw[HONEYPOT_FIELD] === 'string' && raw[HONEYPOT_FIELD] !== '') return { kind: 'ignored' };
      const { values, errors } = validateSubmission(submissionFormOf(body));
      if (values.category !== '' && !errors.some((error) => error.field === 'category')) {
        const category = await db('categories').where({ slug: values.category }).first('id');
        if (!category) errors.push({ field: 'category', problem: 'unknownCategory' });
      }
      const urlValid = !errors.some((error) => error.field === 'url');
      const key = urlValid ? urlKey(values.url) : '';
      if (urlValid && (await repository.urlTaken(key))) errors.unshift({ field: 'url', problem: 'duplicate' });
      if (errors.length > 0) return { kind: 'refused', form: values, errors: sortErrors(errors) };
      // Only a submission that would be stored counts: a visitor fixing a typo is not throttled.
      const hash = submitterHash(address);
      const verdict = await limiter.take(hash);
      if (!verdict.allowed) return { kind: 'throttled', retryAfterSeconds: verdict.retryAfterSeconds };
      if (!(await repository.insert(values, key, hash))) return { kind: 'refused', form: values, errors: [{ field: 'url', problem: 'duplicate' }] };
      return { kind: 'stored' };
    },
  };
}

const ORDER = ['name', 'url', 'category', 'description', 'contact'];
const sortErrors = (errors: SubmissionFieldError[]) => [...errors].sort((a, b) => ORDER.indexOf(a.field) - ORDER.indexOf(b.field));

export type SubmissionsService = ReturnType<typeof createSubmissionsService>;
