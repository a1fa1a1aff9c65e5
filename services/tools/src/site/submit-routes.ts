import express, { Router, type Request, type Response } from 'express';
import type { SubmissionsService } from '../submissions/submissions-service';
import type { PageContext } from './page-layout';
import { renderError } from './pages';
import type { SiteService } from './site-service';
import type { Lang } from './site-text';
import { LANGS } from './site-text';
import { pageUrl } from './site-urls';
import { renderSubmitForm, renderSubmitThanks } from './submit-page';
import { SUBMIT_TEXT } from './submit-text';

export interface SubmitRoutesDeps {
  site: SiteService;
  submissions: SubmissionsService;
  contextOf: (req: Request, lang: Lang) => Promise<PageContext>;
  sendPage: (res: Response, lang: Lang, status: number, body: string, cacheControl: string) => void;
  cacheable: string;
}

/**
 * The public 提交工具 form at /submit and /en/submit. The form page is the same for everyone, so it is
 * cached like any page; the POST never is. No CSRF token: the form is anonymous, so a forged post from
 * another site carries no one's authority and can do nothing its author could not do by posting directly,
 * and a token would make the page per-visitor (uncacheable). The per-address limit applies either way.
 */
export function createSubmitRoutes(deps: SubmitRoutesDeps): Router {
  const { site, submissions, contextOf, sendPage } = deps;
  const router = Router();
  const body = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });

  for (const lang of LANGS) {
    const path = pageUrl(lang, { kind: 'submit' });
    router.get(path, async (req, res) => {
      res.locals.metricsRoute = 'site_submit';
      const [context, categories] = await Promise.all([contextOf(req, lang), site.categories()]);
      sendPage(res, lang, 200, renderSubmitForm(context, { categories }), deps.cacheable);
    });

    router.post(path, body, async (req, res) => {
      res.locals.metricsRoute = 'site_submit';
      const outcome = await submissions.submit(req.body, req.ip ?? 'unknown');
      if (outcome.kind === 'stored' || outcome.kind === 'ignored') {
        res.set('Cache-Control', 'no-store').redirect(303, pageUrl(lang, { kind: 'submitted' }));
        return;
      }
      const context = await contextOf(req, lang);
      if (outcome.kind === 'throttled') {
        const t = SUBMIT_TEXT[lang];
        res.set('Retry-After', String(outcome.retryAfterSeconds));
        sendPage(res, lang, 429, renderError(context, { title: t.tooManyTitle, text: t.tooManyText(Math.ceil(outcome.retryAfterSeconds / 60)) }), 'no-store');
        return;
      }
      sendPage(res, lang, 422, renderSubmitForm(context, { categories: await site.categories(), form: outcome.form, errors: outcome.errors }), 'no-store');
    });

    router.get(pageUrl(lang, { kind: 'submitted' }), async (req, res) => {
      res.locals.metricsRoute = 'site_submit';
      sendPage(res, lang, 200, renderSubmitThanks(await contextOf(req, lang)), deps.cacheable);
    });
  }
  return router;
}
