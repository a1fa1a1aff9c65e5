import { Router, type Request, type Response } from 'express';
import { createApiKey } from '../auth/api-keys';
import type { ApiKeysRepository } from '../auth/api-keys-repository';
import type { KeyVersion } from '../auth/key-version';
import { notFound } from '../errors/app-error';
import type { RequestLimiter } from '../ratelimit/request-limiter';
import type { AdminContext, FieldError } from './admin-layout';
import { ADMIN_TEXT as T } from './admin-text';
import { renderKeyLimit, renderKeyList, type KeyView } from './key-pages';
import { renderKeyUsage, usageSince } from './key-usage-page';
import { HOUR_MS, type KeyHourCounter } from '../usage/key-hours';

export interface KeysAdminDeps {
  repository: ApiKeysRepository;
  limiter: RequestLimiter;
  /** Moved after a key changes, so no replica trusts its cached copy; absent: replicas re-read within KEY_CACHE_TTL_MS. */
  keyVersion?: KeyVersion;
  defaultRateLimitPerHour: number;
  keyHours: KeyHourCounter;
  now: () => number;
}

const UNIQUE_VIOLATION = '23505';

/**
 * API keys in the admin: the list with each key's limit and use this hour, a new key (shown once, on the
 * answer to its POST), its hourly limit changed, disable and enable. The same repository and key-version announcement
 * as the CLI's key:* commands.
 */
export function createKeysAdminRoutes(deps: KeysAdminDeps & { contextOf: (res: Response) => AdminContext }): Router {
  const router = Router();
  const send = (res: Response, status: number, body: string) => res.status(status).type('html').send(body);

  async function keyViews(): Promise<KeyView[]> {
    const nowMs = deps.now();
    const [keys, hours] = await Promise.all([deps.repository.list(), deps.keyHours.hours(new Date(nowMs - 7 * 24 * HOUR_MS))]);
    const dayStart = nowMs - 24 * HOUR_MS;
    return Promise.all(
      keys.map(async (key) => {
        const usage = await deps.limiter.usage(`key:${key.id}`).catch(() => undefined);
        const own = hours.filter((hour) => hour.keyId === key.id);
        // An hour counts toward the last 24 hours when it ends inside them.
        const lastDay = own.filter((hour) => hour.hour.getTime() + HOUR_MS > dayStart).reduce((sum, hour) => sum + hour.requests, 0);
        return { key, usedThisHour: usage === undefined ? null : (usage?.consumed ?? 0), lastDay, lastWeek: own.reduce((sum, hour) => sum + hour.requests, 0) };
      }),
    );
  }

  /** True when every replica was told; false when the change waits for their caches to expire. */
  async function announce(): Promise<boolean> {
    if (!deps.keyVersion) return true;
    try {
      await deps.keyVersion.changed();
      return true;
    } catch {
      return false;
    }
  }

  const page = async (res: Response, status: number, extra: Omit<Parameters<typeof renderKeyList>[1], 'keys' | 'defaultLimit'>) =>
    send(res, status, renderKeyList(deps.contextOf(res), { keys: await keyViews(), defaultLimit: deps.defaultRateLimitPerHour, ...extra }));

  router.get('/keys', async (req, res) => {
    const done = req.query.done;
    let notice: string | undefined = done === 'disabled' ? T.keyDisabledDone : done === 'enabled' ? T.keyEnabledDone : done === 'late' ? T.keyNotAnnounced : undefined;
    if (done === 'limit' && typeof req.query.key === 'string') {
      const key = (await deps.repository.list()).find((candidate) => String(candidate.id) === req.query.key);
      if (key) notice = T.keyLimitDone(key.name, key.rateLimitPerHour === null ? T.keyDefaultLimit(deps.defaultRateLimitPerHour) : String(key.rateLimitPerHour));
    }
    await page(res, 200, { notice });
  });

  /** The key named by the path's id; 404 for any other id. */
  async function keyOf(req: Request) {
    const raw = req.params.id;
    if (typeof raw !== 'string' || !/^[1-9]\d{0,8}$/.test(raw)) throw notFound();
    const key = (await deps.repository.list()).find((candidate) => candidate.id === Number(raw));
    if (!key) throw notFound();
    return key;
  }
  /** A limit as typed: empty is the default (null), else a whole number from 1 to 999,999,999; undefined: refused. */
  const parseLimit = (text: string): number | null | undefined => (text === '' ? null : /^\d{1,9}$/.test(text) && Number(text) >= 1 ? Number(text) : undefined);

  router.get('/keys/:id/limit', async (req, res) => {
    const key = await keyOf(req);
    send(res, 200, renderKeyLimit(deps.contextOf(res), { key, defaultLimit: deps.defaultRateLimitPerHour, form: { limit: key.rateLimitPerHour === null ? '' : String(key.rateLimitPerHour), errors: [] } }));
  });

  router.post('/keys/:id/limit', async (req: Request, res) => {
    const key = await keyOf(req);
    const body = req.body as Record<string, unknown>;
    const limitText = typeof body.limit === 'string' ? body.limit.trim() : '';
    const limit = parseLimit(limitText);
    if (limit === undefined) {
      const form = { limit: limitText, errors: [{ field: 'limit', message: T.keyLimitInvalid }] };
      send(res, 422, renderKeyLimit(deps.contextOf(res), { key, defaultLimit: deps.defaultRateLimitPerHour, form }));
      return;
    }
    if (!(await deps.repository.update(key.id, { rateLimitPerHour: limit }))) throw notFound();
    res.redirect(303, (await announce()) ? `/admin/keys?done=limit&key=${key.id}` : '/admin/keys?done=late');
  });

  router.post('/keys', async (req: Request, res) => {
    const body = req.body as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    const limitText = typeof body.limit === 'string' ? body.limit.trim() : '';
    const errors: FieldError[] = [];
    if (name === '' || name.length > 100) errors.push({ field: 'name', message: T.keyNameRequired });
    if (parseLimit(limitText) === undefined) errors.push({ field: 'limit', message: T.keyLimitInvalid });
    if (errors.length === 0) {
      try {
        const { apiKey, record } = await createApiKey(deps.repository, { name, rateLimitPerHour: parseLimit(limitText)! });
        // Answered here, not after a redirect: the key exists in no other place to show it from.
        await page(res, 201, { created: { name: record.name, apiKey } });
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
        errors.push({ field: 'name', message: T.keyNameTaken(name) });
      }
    }
    await page(res, 422, { form: { name, limit: limitText, errors } });
  });

  router.get('/keys/:id/usage', async (req, res) => {
    const key = await keyOf(req);
    const nowMs = deps.now();
    const hours = (await deps.keyHours.hours(usageSince(nowMs))).filter((hour) => hour.keyId === key.id);
    send(res, 200, renderKeyUsage(deps.contextOf(res), { key, hours, nowMs }));
  });

  for (const action of ['disable', 'enable'] as const) {
    router.post(`/keys/:id/${action}`, async (req, res) => {
      const raw = req.params.id;
      if (typeof raw !== 'string' || !/^[1-9]\d{0,8}$/.test(raw)) throw notFound();
      const updated = await deps.repository.update(Number(raw), { enabled: action === 'enable' });
      if (!updated) throw notFound();
      res.redirect(303, `/admin/keys?done=${(await announce()) ? `${action}d` : 'late'}`);
    });
  }

  return router;
}
