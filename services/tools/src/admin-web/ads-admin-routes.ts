import { Router, type Response } from 'express';
import type { AdsService } from '../ads/ads-service';
import type { AdminContext } from './admin-layout';
import { ADS_FORM_FIELDS, adsFormOf, parseAdsForm, type AdsForm } from './ads-form';
import { adsPreview, renderAdsPage } from './ads-pages';
import { ADS_TEXT as A } from './ads-text';

/**
 * The mini-program's ad configuration in the admin: the form with the stored config and its preview;
 * "预览" shows the typed config without storing it, "保存" stores it (the API reads it on every request, so
 * the next mini-program request gets it). A refused form is 422 with each field named, and nothing stored.
 */
export function createAdsAdminRoutes(deps: { ads: AdsService; contextOf: (res: Response) => AdminContext }): Router {
  const router = Router();
  const send = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);

  router.get('/ads', async (req, res) => {
    const stored = await deps.ads.adsConfig();
    const notice = req.query.done === 'saved' ? A.saved : undefined;
    send(res, 200, renderAdsPage(deps.contextOf(res), { form: adsFormOf(stored), errors: [], preview: adsPreview(stored, A.currentNote), notice }));
  });

  router.post('/ads', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const form: AdsForm = {};
    for (const name of ADS_FORM_FIELDS) if (typeof body[name] === 'string') form[name] = body[name];
    const parsed = parseAdsForm(form);
    if ('errors' in parsed) {
      const stored = await deps.ads.adsConfig();
      send(res, 422, renderAdsPage(deps.contextOf(res), { form, errors: parsed.errors, preview: adsPreview(stored, A.currentNote) }));
      return;
    }
    if (body.intent === 'save') {
      await deps.ads.saveAdsConfig(parsed.config);
      res.redirect(303, '/admin/ads?done=saved');
      return;
    }
    send(res, 200, renderAdsPage(deps.contextOf(res), { form, errors: [], preview: adsPreview(parsed.config, A.previewNote) }));
  });

  return router;
}
