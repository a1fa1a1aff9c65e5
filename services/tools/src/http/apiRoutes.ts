import { Router, type Request } from 'express';
import type { DirectoryService } from '../catalog/directoryService';
import type { AccessControl } from './accessControl';
import { AppError, badParameter, messages } from './appError';
import { ok } from './envelope';
import { optionalString } from './queryParams';

type Action = { authentication: 'required' | 'optional'; run: (req: Request) => Promise<unknown> };

export const API_PATH = '/api/index.php';

export function createApiRoutes(directory: DirectoryService, admit: AccessControl): Router {
  const actions: Record<string, Action> = {
    tools: { authentication: 'required', run: (req) => directory.listTools(req.query) },
    tool: { authentication: 'required', run: (req) => directory.toolDetail(req.query, { countVisit: req.method !== 'HEAD' }) },
    search: { authentication: 'optional', run: (req) => directory.search(req.query) },
    categories: { authentication: 'required', run: () => directory.categories() },
    category: { authentication: 'required', run: (req) => directory.categoryDetail(req.query) },
    stats: { authentication: 'required', run: () => directory.stats() },
    miniapp: { authentication: 'optional', run: (req) => directory.miniapp(req.query) },
  };

  const router = Router();
  router.options(API_PATH, (_req, res) => {
    res.status(204).end();
  });
  router.get(API_PATH, async (req, res) => {
    res.locals.metricsRoute = 'invalid_action';
    const name = optionalString(req.query, 'action');
    if (name === undefined || name === '') throw badParameter('缺少 action');
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (!action) throw badParameter('未知的 action');
    res.locals.metricsRoute = name;
    await admit(req, res, action.authentication);
    res.json(ok(await action.run(req)));
  });
  router.all(API_PATH, (_req, res) => {
    res.locals.metricsRoute = 'method_not_allowed';
    res.set('Allow', 'GET, HEAD, OPTIONS');
    throw new AppError(405, messages.methodNotAllowed);
  });
  return router;
}
