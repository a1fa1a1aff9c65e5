import { Router, type Request, type Response } from 'express';
import type { CatalogEdits } from '../catalog/catalog-edits';
import type { CatalogEditor, FieldError, FormFields } from '../catalog/catalog-editor';
import type { EditorSession } from '../editors/editor-auth';
import { notFound } from '../errors/app-error';
import type { StoredSubmission } from '../submissions/submissions-repository';
import { AlreadyReviewed, type SubmissionsService } from '../submissions/submissions-service';
import type { AdminContext } from './admin-layout';
import { renderMessagePage } from './admin-layout';
import { renderSubmissionQueue } from './submission-pages';
import { SUBMISSION_TEXT as S } from './submission-text';
import { renderToolForm } from './tool-pages';

const TOOL_FIELDS = ['slug', 'name', 'description', 'url', 'icon', 'category', 'tags', 'is_featured', 'sort_order'];
/** The notice after a redirect (`?done=`), in the request's language (so looked up per request, not once). */
const NOTICES: Record<string, () => string> = { approved: () => S.approved, rejected: () => S.rejected };

function idOf(req: Request): number {
  const raw = req.params.id;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** A slug to start from: the site's host without "www." ("www.remove.bg" → "remove-bg"); the editor may change it. */
export function suggestedSlug(url: string): string {
  try {
    const host = new URL(url).hostname.replace(/^www\./, '');
    return host.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100);
  } catch {
    return '';
  }
}

function prefilled(item: StoredSubmission): FormFields {
  return { name: item.name, url: item.url, description: item.description, category: item.category_slug, slug: suggestedSlug(item.url), tags: '', icon: '', sort_order: '0' };
}

function formOf(req: Request): FormFields {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const form: FormFields = {};
  for (const name of TOOL_FIELDS) {
    const value = Array.isArray(body[name]) ? (body[name] as unknown[])[0] : body[name];
    if (typeof value === 'string') form[name] = value;
  }
  return form;
}

/**
 * The review queue (/admin/submissions). Approving saves the tool through the catalog editor, the same
 * path as the tools form (validation, caches cleared), and closes the submission in the same transaction;
 * of an approve and a reject at once, one wins and the other is told 409. Every request here is
 * a signed-in editor's and every POST carries the session's form token (admin-routes.ts checks both).
 */
export function createSubmissionsAdminRoutes(deps: {
  submissions: SubmissionsService;
  editor: CatalogEditor;
  edits: CatalogEdits;
  contextOf: (res: Response) => AdminContext;
}): Router {
  const { editor, edits, contextOf } = deps;
  const queue = deps.submissions.repository;
  const router = Router();
  const send = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);
  const editorId = (res: Response) => (res.locals.editorSession as EditorSession).editor.id;
  const approveForm = async (res: Response, item: StoredSubmission, form: FormFields, errors: FieldError[], status: number) =>
    send(res, status, renderToolForm(contextOf(res), { heading: S.approveTitle(item.name), form, errors, categories: await edits.listCategories(), action: `/admin/submissions/${item.id}/approve`, cancel: '/admin/submissions' }));
  const pendingOr409 = async (res: Response, id: number) => {
    const item = await queue.findPending(id);
    if (!item) {
      if (await queue.exists(id)) send(res, 409, renderMessagePage(contextOf(res), S.title, S.alreadyReviewed));
      else throw notFound();
    }
    return item;
  };

  router.get('/submissions', async (req, res) => {
    const done = req.query.done;
    const notice = typeof done === 'string' && Object.hasOwn(NOTICES, done) ? NOTICES[done]!() : undefined;
    send(res, 200, renderSubmissionQueue(contextOf(res), { submissions: await queue.listPending(), notice }));
  });

  router.get('/submissions/:id/approve', async (req, res) => {
    const item = await pendingOr409(res, idOf(req));
    if (item) await approveForm(res, item, prefilled(item), [], 200);
  });

  router.post('/submissions/:id/approve', async (req, res) => {
    const item = await pendingOr409(res, idOf(req));
    if (!item) return;
    const form = formOf(req);
    // One transaction: the tool and the submission's approval; a reject that got there first undoes the tool.
    let result;
    try {
      result = await editor.saveTool(undefined, form, (trx, toolId) => deps.submissions.closeApproved(trx, item.id, toolId, editorId(res)));
    } catch (error) {
      if (!(error instanceof AlreadyReviewed)) throw error;
      send(res, 409, renderMessagePage(contextOf(res), S.title, S.alreadyReviewed));
      return;
    }
    if ('notFound' in result) throw notFound();
    if (!result.saved) {
      await approveForm(res, item, form, result.errors, 422);
      return;
    }
    res.redirect(303, '/admin/submissions?done=approved');
  });

  router.post('/submissions/:id/reject', async (req, res) => {
    const item = await pendingOr409(res, idOf(req));
    if (!item) return;
    const reason = typeof (req.body as Record<string, unknown>).reason === 'string' ? ((req.body as Record<string, string>).reason ?? '').trim().slice(0, 500) : '';
    if (!(await queue.review(item.id, { status: 'rejected', reason }, editorId(res)))) {
      send(res, 409, renderMessagePage(contextOf(res), S.title, S.alreadyReviewed));
      return;
    }
    res.redirect(303, '/admin/submissions?done=rejected');
  });

  return router;
}
