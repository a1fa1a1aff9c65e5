import type { Knex } from 'knex';
import type { SubmissionForm } from './submission-form';

export type SubmissionStatus = 'pending' | 'approved' | 'rejected';

export interface StoredSubmission {
  id: number;
  name: string;
  url: string;
  category_slug: string;
  category_name: string | null;
  category_name_en: string | null;
  description: string;
  contact: string;
  status: SubmissionStatus;
  created_at: Date;
}

const UNIQUE_VIOLATION = '23505';

/** The review queue's rows (migration 20261127145600_tool_submissions). */
export function createSubmissionsRepository(db: Knex) {
  const columns = ['s.id', 's.name', 's.url', 's.category_slug', 'c.name as category_name', 'c.name_en as category_name_en', 's.description', 's.contact', 's.status', 's.created_at'];
  const withCategory = () => db('tool_submissions as s').leftJoin('categories as c', 'c.slug', 's.category_slug');

  return {
    /** Whether a tool or a pending submission already has this URL (compared by key: see urlKey). */
    async urlTaken(key: string): Promise<boolean> {
      const pending = await db('tool_submissions').where({ url_key: key, status: 'pending' }).first('id');
      if (pending) return true;
      // Tools' URLs were typed by editors and importers: the same key, computed in SQL.
      const tool = await db('tools')
        .whereRaw(`lower(regexp_replace(regexp_replace(regexp_replace(url, ?, '', 'i'), ?, ''), ?, '')) = ?`, ['^https?://(www[.])?', '#.*$', '/+$', key])
        .first('id');
      return Boolean(tool);
    },

    /** Stores a pending submission; false when a pending one with the same URL won the race. */
    async insert(form: SubmissionForm, key: string, submitterHash: string): Promise<boolean> {
      try {
        await db('tool_submissions').insert({
          name: form.name,
          url: form.url,
          url_key: key,
          category_slug: form.category,
          description: form.description,
          contact: form.contact,
          submitter_hash: submitterHash,
        });
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
        throw error;
      }
    },

    listPending(): Promise<StoredSubmission[]> {
      return withCategory().where('s.status', 'pending').orderBy('s.id').select(columns);
    },

    async exists(id: number): Promise<boolean> {
      return Boolean(await db('tool_submissions').where({ id }).first('id'));
    },

    async countPending(): Promise<number> {
      return Number((await db('tool_submissions').where({ status: 'pending' }).count({ n: '*' }))[0]!.n);
    },

    async findPending(id: number): Promise<StoredSubmission | undefined> {
      return withCategory().where({ 's.id': id, 's.status': 'pending' }).first(columns);
    },

    /** Closes a pending submission; false when it was not pending (another editor reviewed it). */
    async review(id: number, outcome: { status: 'approved'; toolId: number } | { status: 'rejected'; reason: string }, editorId: number): Promise<boolean> {
      const changed = await db('tool_submissions')
        .where({ id, status: 'pending' })
        .update({
          status: outcome.status,
          reviewed_by: editorId,
          reviewed_at: db.fn.now(),
          tool_id: outcome.status === 'approved' ? outcome.toolId : null,
          reject_reason: outcome.status === 'rejected' ? outcome.reason : '',
        });
      return changed === 1;
    },
  };
}

export type SubmissionsRepository = ReturnType<typeof createSubmissionsRepository>;
