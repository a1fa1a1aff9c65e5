import { Router } from 'express';
import type { IconRepository } from './icon-repository';

/** The URL the website links for a stored icon: its version in the query makes it cacheable for good. */
export function iconUrl(slug: string, version: string): string {
  return `/icons/${encodeURIComponent(slug)}?v=${version}`;
}

const FOREVER = 'public, max-age=31536000, immutable';
/** Without the current version in the URL an answer may be stale soon: an icon can be refetched. */
const BRIEF = 'public, max-age=3600';

/**
 * `GET /icons/<slug>`: the stored icon, always a PNG we rendered. The headers keep it an image whatever
 * a browser thinks: nosniff, and a CSP sandbox in case it is ever opened as a document.
 */
export function createIconRoutes(icons: Pick<IconRepository, 'iconBySlug'>): Router {
  const router = Router();
  router.get('/icons/:slug', async (req, res) => {
    res.locals.metricsRoute = 'icon';
    const icon = await icons.iconBySlug(req.params.slug);
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; sandbox" });
    if (!icon) {
      res.status(404).set('Cache-Control', 'public, max-age=60').type('text/plain').send('no icon');
      return;
    }
    const etag = `"${icon.version}"`;
    res.set({ ETag: etag, 'Cache-Control': req.query.v === icon.version ? FOREVER : BRIEF });
    if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).type(icon.contentType).send(icon.content);
  });
  return router;
}
