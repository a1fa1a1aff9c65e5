import { Router, type Request, type Response } from 'express';
import { notFound } from '../errors/app-error';
import type { LinkStatus } from '../links/link-probe';
import type { AdminContext } from './admin-layout';
import { adminName } from './admin-localize';
import { HEALTH_TEXT as H } from './health-text';
import { renderLinkHealth, renderLinkHistory } from './link-health-pages';
import type { OutboundAdmin } from './outbound-admin';

const FILTERS = ['broken', 'unknown', 'all'] as const;

function slugOf(req: Request): string {
  const raw = req.params.slug;
  if (typeof raw !== 'string' || !/^[a-z0-9._-]{1,100}$/.test(raw)) throw notFound();
  return raw;
}

/** Link health in the admin: counts, the broken (or unknown) links, a tool's history, and "check now". */
export function createLinkHealthRoutes(deps: { outbound: OutboundAdmin; contextOf: (res: Response) => AdminContext }): Router {
  const { outbound, contextOf } = deps;
  const router = Router();
  const send = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);

  router.get('/links', async (req, res) => {
    const filter = FILTERS.find((value) => value === req.query.status) ?? 'broken';
    const [counts, links] = await Promise.all([
      outbound.links.countByStatus(),
      outbound.links.listLinkHealth(filter === 'all' ? {} : { status: filter as LinkStatus }),
    ]);
    send(res, 200, renderLinkHealth(contextOf(res), { counts, filter, links }));
  });

  router.get('/links/:slug', async (req, res) => {
    const slug = slugOf(req);
    const tool = await outbound.links.targetWithName(slug);
    if (!tool) throw notFound();
    const checks = await outbound.links.linkHistory(slug);
    const checked = typeof req.query.checked === 'string' ? H.status[req.query.checked] : undefined;
    send(res, 200, renderLinkHistory(contextOf(res), { slug, name: adminName(tool), url: tool.url, checks, notice: checked ? H.checked(checked) : undefined }));
  });

  router.post('/links/:slug/check', async (req, res) => {
    const slug = slugOf(req);
    const target = await outbound.links.targetWithName(slug);
    if (!target) throw notFound();
    const [outcome] = await outbound.withFetcher(({ checker }) => checker.check([target]));
    res.redirect(303, `/admin/links/${slug}?checked=${outcome!.probe.status}`);
  });

  return router;
}
