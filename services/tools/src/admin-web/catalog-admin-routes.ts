import { Router, type Request, type Response } from 'express';
import type { CatalogEdits, EditableTool } from '../catalog/catalog-edits';
import type { CatalogEditor, FieldError, FormFields, SaveResult } from '../catalog/catalog-editor';
import { notFound } from '../errors/app-error';
import type { Html } from '../site/html';
import { renderConfirmDelete, type AdminContext } from './admin-layout';
import { adminName } from './admin-localize';
import { HEALTH_TEXT as H } from './health-text';
import { ADMIN_TEXT as T } from './admin-text';
import { categoryFormFields, renderCategoryForm, renderCategoryList } from './category-pages';
import { renderToolForm, renderToolList, toolFormFields, TOOLS_PER_PAGE } from './tool-pages';

/** The notice after a redirect (`?done=`), in the request's language (so looked up per request, not once). */
const NOTICES: Record<string, () => string> = { saved: () => T.saved, deleted: () => T.deleted, featured: () => T.featuredDone, unfeatured: () => T.unfeaturedDone, icon: () => H.iconSaved, icon_cleared: () => H.iconCleared };
const FORM_FIELDS = ['slug', 'name', 'description', 'url', 'icon', 'category', 'tags', 'is_featured', 'sort_order', 'parent', 'name_en', 'description_en'];

/** A database id from the path; anything else names nothing (404). */
function idOf(req: Request): number {
  const raw = req.params.id;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,8}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** The form's text fields (a repeated field counts as its first value). */
function formOf(req: Request): FormFields {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const form: FormFields = {};
  for (const name of FORM_FIELDS) {
    const value = Array.isArray(body[name]) ? (body[name] as unknown[])[0] : body[name];
    if (typeof value === 'string') form[name] = value;
  }
  return form;
}

function pageNumber(raw: unknown): number {
  return typeof raw === 'string' && /^[1-9]\d{0,5}$/.test(raw) ? Number(raw) : 1;
}

function noticeOf(req: Request): string | undefined {
  const done = req.query.done;
  return typeof done === 'string' && Object.hasOwn(NOTICES, done) ? NOTICES[done]!() : undefined;
}

/** The admin's pages over tools and categories; every request here is a signed-in editor's (admin-routes.ts checks). */
export function createCatalogAdminRoutes(deps: {
  editor: CatalogEditor;
  edits: CatalogEdits;
  contextOf: (res: Response) => AdminContext;
  /** The icon section of a tool's edit page (icon-admin-routes.ts). */
  iconPanel: (context: AdminContext, tool: EditableTool) => Promise<Html>;
  /** Starts fetching a tool's icon again (after its address changed), without waiting for it. */
  refetchIcon: (slug: string) => void;
}): Router {
  const { editor, edits, contextOf } = deps;
  const router = Router();
  const send = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);
  const categories = () => edits.listCategories();

  /** After a refused form: the form again, with what was typed and what was wrong (422). */
  async function answerSave(res: Response, result: SaveResult, onSaved: string, refused: (errors: FieldError[]) => Promise<string>) {
    if ('notFound' in result) throw notFound();
    if (result.saved) res.redirect(303, onSaved);
    else send(res, 422, await refused(result.errors));
  }

  router.get('/tools', async (req, res) => {
    const categoryRaw = typeof req.query.category === 'string' && /^[1-9]\d{0,8}$/.test(req.query.category) ? Number(req.query.category) : undefined;
    const query = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
    const page = pageNumber(req.query.page);
    const sort = req.query.sort === 'visits' ? 'visits' : undefined;
    const [list, all] = await Promise.all([edits.listTools({ categoryId: categoryRaw, query, sort }, (page - 1) * TOOLS_PER_PAGE, TOOLS_PER_PAGE), categories()]);
    send(res, 200, renderToolList(contextOf(res), { ...list, page, categories: all, categoryId: categoryRaw, query, sort, notice: noticeOf(req) }));
  });

  router.get('/tools/new', async (req, res) => {
    const all = await categories();
    const category = typeof req.query.category === 'string' ? req.query.category : (all[0]?.slug ?? '');
    send(res, 200, renderToolForm(contextOf(res), { heading: T.newTool, form: { category }, errors: [], categories: all }));
  });

  router.post('/tools', async (req, res) => {
    const form = formOf(req);
    await answerSave(res, await editor.saveTool(undefined, form), '/admin/tools?done=saved', async (errors) =>
      renderToolForm(contextOf(res), { heading: T.newTool, form, errors, categories: await categories() }),
    );
  });

  router.get('/tools/:id/edit', async (req, res) => {
    const tool = await edits.findTool(idOf(req));
    if (!tool) throw notFound();
    const context = contextOf(res);
    const [all, iconPanel] = await Promise.all([categories(), deps.iconPanel(context, tool)]);
    send(res, 200, renderToolForm(context, { id: tool.id, heading: T.editTool(adminName(tool)), form: toolFormFields(tool), errors: [], categories: all, iconPanel, notice: noticeOf(req) }));
  });

  router.post('/tools/:id', async (req, res) => {
    const id = idOf(req);
    const form = formOf(req);
    const before = await edits.findTool(id);
    const result = await editor.saveTool(id, form);
    if (result.saved && before) {
      const after = await edits.findTool(id);
      if (after && after.url !== before.url) deps.refetchIcon(after.slug);
    }
    await answerSave(res, result, '/admin/tools?done=saved', async (errors) => {
      const stored = await edits.findTool(id);
      return renderToolForm(contextOf(res), { id, heading: T.editTool(stored?.name ?? form.name ?? ''), form, errors, categories: await categories() });
    });
  });

  router.post('/tools/:id/feature', async (req, res) => {
    const featured = (req.body as Record<string, unknown>).featured === '1';
    if (!(await editor.setFeatured(idOf(req), featured))) throw notFound();
    res.redirect(303, `/admin/tools?done=${featured ? 'featured' : 'unfeatured'}`);
  });

  router.get('/tools/:id/delete', async (req, res) => {
    const tool = await edits.findTool(idOf(req));
    if (!tool) throw notFound();
    send(res, 200, renderConfirmDelete(contextOf(res), { name: adminName(tool), text: T.deleteToolText, action: `/admin/tools/${tool.id}/delete`, back: `/admin/tools/${tool.id}/edit` }));
  });

  router.post('/tools/:id/delete', async (req, res) => {
    if (!(await editor.deleteTool(idOf(req)))) throw notFound();
    res.redirect(303, '/admin/tools?done=deleted');
  });

  router.get('/categories', async (req, res) => {
    send(res, 200, renderCategoryList(contextOf(res), { categories: await categories(), notice: noticeOf(req) }));
  });

  router.get('/categories/new', async (_req, res) => {
    send(res, 200, renderCategoryForm(contextOf(res), { heading: T.newCategory, form: {}, errors: [], categories: await categories() }));
  });

  router.post('/categories', async (req, res) => {
    const form = formOf(req);
    await answerSave(res, await editor.saveCategory(undefined, form), '/admin/categories?done=saved', async (errors) =>
      renderCategoryForm(contextOf(res), { heading: T.newCategory, form, errors, categories: await categories() }),
    );
  });

  router.get('/categories/:id/edit', async (req, res) => {
    const category = await edits.findCategory(idOf(req));
    if (!category) throw notFound();
    send(res, 200, renderCategoryForm(contextOf(res), { id: category.id, heading: T.editCategory(adminName(category)), form: categoryFormFields(category), errors: [], categories: await categories() }));
  });

  router.post('/categories/:id', async (req, res) => {
    const id = idOf(req);
    const form = formOf(req);
    await answerSave(res, await editor.saveCategory(id, form), '/admin/categories?done=saved', async (errors) => {
      const stored = await edits.findCategory(id);
      return renderCategoryForm(contextOf(res), { id, heading: T.editCategory(stored?.name ?? form.name ?? ''), form, errors, categories: await categories() });
    });
  });

  router.get('/categories/:id/delete', async (req, res) => {
    const category = await edits.findCategory(idOf(req));
    if (!category) throw notFound();
    send(res, 200, renderConfirmDelete(contextOf(res), { name: adminName(category), text: T.deleteCategoryText, action: `/admin/categories/${category.id}/delete`, back: '/admin/categories' }));
  });

  router.post('/categories/:id/delete', async (req, res) => {
    const id = idOf(req);
    const category = await edits.findCategory(id);
    const outcome = await editor.deleteCategory(id);
    if (!outcome || !category) throw notFound();
    if (outcome.deleted) {
      res.redirect(303, '/admin/categories?done=deleted');
      return;
    }
    // Refused, with the reason on the list it was asked from (409: the category's state forbids it).
    const error = outcome.toolCount > 0 ? T.categoryNotEmpty(adminName(category), outcome.toolCount) : T.categoryHasSubcategories(adminName(category), outcome.subcategoryCount);
    send(res, 409, renderCategoryList(contextOf(res), { categories: await categories(), error }));
  });

  return router;
}
