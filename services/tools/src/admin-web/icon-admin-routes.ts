import { Router, type Request, type RequestHandler, type Response } from 'express';
import multer from 'multer';
import type { CatalogEdits, EditableTool } from '../catalog/catalog-edits';
import { notFound } from '../errors/app-error';
import { NotAnIconError } from '../icons/icon-image';
import type { AdminContext } from './admin-layout';
import { HEALTH_TEXT as H } from './health-text';
import { ICON_UPLOAD_BYTES, renderIconPanel, type IconPanelView } from './icon-panel';
import type { OutboundAdmin } from './outbound-admin';
import { renderToolForm, toolFormFields } from './tool-pages';
import { ADMIN_TEXT as T } from './admin-text';

export const ICON_FILE_PATH = '/tools/:id/icon/file';

const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: ICON_UPLOAD_BYTES, files: 1, fields: 5, parts: 6 } }).single('icon_file');

/**
 * Parses an icon upload for a signed-in editor only (the form token is in the multipart body, so it must be
 * parsed before admin-routes.ts checks it). A refused upload is kept in res.locals for the route to name.
 */
export function iconUploadParser(isSignedIn: (res: Response) => boolean): RequestHandler {
  return (req, res, next) => {
    if (!isSignedIn(res) || !req.is('multipart/form-data')) {
      next();
      return;
    }
    upload(req, res, (error: unknown) => {
      if (error) res.locals.iconUploadError = error instanceof multer.MulterError && error.code === 'LIMIT_FILE_SIZE' ? 'too_large' : 'invalid';
      next();
    });
  };
}

function idOf(req: Request): number {
  const raw = req.params.id;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,8}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** A tool's icon in the admin: use a URL, upload a file, clear the override, fetch again. */
export function createIconAdminRoutes(deps: { outbound: OutboundAdmin; edits: CatalogEdits; contextOf: (res: Response) => AdminContext }) {
  const { outbound, edits, contextOf } = deps;
  const router = Router();

  const panelFor = async (context: AdminContext, tool: EditableTool, extra: Partial<IconPanelView> = {}) =>
    renderIconPanel(context, { toolId: tool.id, slug: tool.slug, name: tool.name, state: await outbound.icons.stateBySlug(tool.slug), ...extra });

  async function toolOf(req: Request): Promise<EditableTool> {
    const tool = await edits.findTool(idOf(req));
    if (!tool) throw notFound();
    return tool;
  }

  /** The edit page again, the icon section naming what was refused (422); nothing was stored. */
  async function refuse(res: Response, tool: EditableTool, error: IconPanelView['error'], urlValue?: string) {
    const context = contextOf(res);
    const page = renderToolForm(context, {
      id: tool.id,
      heading: T.editTool(tool.name),
      form: toolFormFields(tool),
      errors: [],
      categories: await edits.listCategories(),
      iconPanel: await panelFor(context, tool, { error, urlValue }),
    });
    res.status(422).type('html').send(page);
  }

  const done = (res: Response, tool: EditableTool, what: 'icon' | 'icon_cleared') => res.redirect(303, `/admin/tools/${tool.id}/edit?done=${what}#icon`);

  router.post('/tools/:id/icon/url', async (req, res) => {
    const tool = await toolOf(req);
    const raw = (req.body as Record<string, unknown>).icon_url;
    const url = typeof raw === 'string' ? raw.trim().slice(0, 2000) : '';
    if (!/^https?:\/\/\S+$/i.test(url)) {
      await refuse(res, tool, { field: 'icon_url', message: H.iconUrlInvalid }, url);
      return;
    }
    const outcome = await outbound.withFetcher(({ icons }) => icons.useUrl(tool.slug, url));
    if (!outcome) throw notFound();
    if (!outcome.ok) {
      await refuse(res, tool, { field: 'icon_url', message: H.iconFetchFailed(H.outboundFailure[outcome.error] ?? outcome.error) }, url);
      return;
    }
    outbound.changed();
    done(res, tool, 'icon');
  });

  router.post(ICON_FILE_PATH, async (req, res) => {
    const tool = await toolOf(req);
    const refused = res.locals.iconUploadError as 'too_large' | 'invalid' | undefined;
    const file = (req as Request & { file?: Express.Multer.File }).file;
    if (refused === 'too_large') return refuse(res, tool, { field: 'icon_file', message: H.iconFileTooLarge(ICON_UPLOAD_BYTES / 1024) });
    if (refused || !file || file.size === 0) return refuse(res, tool, { field: 'icon_file', message: H.iconFileMissing });
    try {
      await outbound.withFetcher(({ icons }) => icons.overrideWithFile(tool.slug, file.buffer));
    } catch (error) {
      if (!(error instanceof NotAnIconError)) throw error;
      return refuse(res, tool, { field: 'icon_file', message: H.iconFileInvalid(error.message) });
    }
    outbound.changed();
    done(res, tool, 'icon');
  });

  router.post('/tools/:id/icon/clear', async (req, res) => {
    const tool = await toolOf(req);
    await outbound.withFetcher(({ icons }) => icons.clearOverride(tool.slug));
    outbound.changed();
    done(res, tool, 'icon_cleared');
  });

  router.post('/tools/:id/icon/refresh', async (req, res) => {
    const tool = await toolOf(req);
    const outcome = await outbound.withFetcher(async ({ icons }) => {
      const target = await outbound.icons.targetBySlug(tool.slug);
      return target ? icons.refresh(target) : undefined;
    });
    if (!outcome) throw notFound();
    if (!outcome.ok) return refuse(res, tool, { field: 'icon_url', message: H.iconFetchFailed(outcome.error) });
    outbound.changed();
    done(res, tool, 'icon');
  });

  return { router, panelFor };
}
