import type { Knex } from 'knex';
import type { LinkProbe, LinkStatus } from './link-probe';

export interface LinkTarget {
  toolId: number;
  slug: string;
  url: string;
}

/** A tool's link as the admin sees it: its latest verdict. */
export interface LinkHealth {
  toolId: number;
  slug: string;
  name: string;
  name_en: string;
  url: string;
  status: LinkStatus;
  reason: string;
  httpStatus: number | null;
  checkedAt: Date;
  consecutiveFailures: number;
  lastOkAt: Date | null;
}

export interface LinkCheck {
  url: string;
  checkedAt: Date;
  status: LinkStatus;
  reason: string;
  httpStatus: number | null;
  durationMs: number;
}

/** Checks kept per tool; older ones are dropped as new ones come. */
export const HISTORY_PER_TOOL = 30;

function toHealth(row: Record<string, unknown>): LinkHealth {
  return {
    toolId: Number(row.tool_id),
    slug: String(row.slug),
    name: String(row.name),
    name_en: String(row.name_en),
    url: String(row.url),
    status: row.status as LinkStatus,
    reason: String(row.reason),
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    checkedAt: new Date(row.checked_at as string),
    consecutiveFailures: Number(row.consecutive_failures),
    lastOkAt: row.last_ok_at ? new Date(row.last_ok_at as string) : null,
  };
}

/**
 * Link health in `link_health` (the latest verdict per tool) and `link_checks` (the history). The
 * list functions are what an admin view calls: `listLinkHealth({ status: 'broken' })`, `linkHistory(slug)`.
 */
export function createLinkRepository(db: Knex) {
  return {
    /** Tools never checked, due again, or whose URL changed since the last check. */
    async dueTargets(now: Date, limit: number): Promise<LinkTarget[]> {
      const rows = await db('tools as t')
        .leftJoin('link_health as h', 'h.tool_id', 't.id')
        .select('t.id', 't.slug', 't.url')
        .where((where) => where.whereNull('h.tool_id').orWhere('h.next_check_at', '<=', now).orWhereRaw('h.url <> t.url'))
        .orderByRaw('h.next_check_at ASC NULLS FIRST, t.id ASC')
        .limit(limit);
      return rows.map((row) => ({ toolId: Number(row.id), slug: String(row.slug), url: String(row.url) }));
    },

    async targetsBySlug(slugs: string[]): Promise<LinkTarget[]> {
      const rows = await db('tools').select('id', 'slug', 'url').whereIn('slug', slugs).orderBy('id');
      return rows.map((row) => ({ toolId: Number(row.id), slug: String(row.slug), url: String(row.url) }));
    },

    /** One tool's link with its name (the admin's history page); undefined: no such tool. */
    async targetWithName(slug: string): Promise<(LinkTarget & { name: string; name_en: string }) | undefined> {
      const row = await db('tools').where({ slug }).first('id', 'slug', 'url', 'name', 'name_en');
      return row ? { toolId: Number(row.id), slug: String(row.slug), url: String(row.url), name: String(row.name), name_en: String(row.name_en) } : undefined;
    },

    async allTargets(): Promise<LinkTarget[]> {
      const rows = await db('tools').select('id', 'slug', 'url').orderBy('id');
      return rows.map((row) => ({ toolId: Number(row.id), slug: String(row.slug), url: String(row.url) }));
    },

    /** Records one verdict: a history row, the latest state, and the history trimmed to HISTORY_PER_TOOL. */
    async record(target: LinkTarget, probe: LinkProbe, checkedAt: Date, nextCheckAt: Date): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('link_checks').insert({ tool_id: target.toolId, url: target.url, checked_at: checkedAt, status: probe.status, reason: probe.reason, http_status: probe.httpStatus, duration_ms: probe.durationMs });
        const ok = probe.status === 'ok';
        await trx.raw(
          `INSERT INTO link_health (tool_id, url, status, reason, http_status, checked_at, next_check_at, consecutive_failures, last_ok_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (tool_id) DO UPDATE SET url = EXCLUDED.url, status = EXCLUDED.status, reason = EXCLUDED.reason,
             http_status = EXCLUDED.http_status, checked_at = EXCLUDED.checked_at, next_check_at = EXCLUDED.next_check_at,
             consecutive_failures = CASE WHEN ? THEN 0 ELSE link_health.consecutive_failures + 1 END,
             last_ok_at = COALESCE(EXCLUDED.last_ok_at, link_health.last_ok_at)`,
          [target.toolId, target.url, probe.status, probe.reason, probe.httpStatus, checkedAt, nextCheckAt, ok ? 0 : 1, ok ? checkedAt : null, ok],
        );
        await trx.raw(
          `DELETE FROM link_checks WHERE tool_id = ? AND id NOT IN (SELECT id FROM link_checks WHERE tool_id = ? ORDER BY checked_at DESC, id DESC LIMIT ?)`,
          [target.toolId, target.toolId, HISTORY_PER_TOOL],
        );
      });
    },

    /** The latest verdicts, worst first (most consecutive failures); filtered by status when given. */
    async listLinkHealth(options: { status?: LinkStatus; limit?: number; offset?: number } = {}): Promise<LinkHealth[]> {
      const query = db('link_health as h')
        .join('tools as t', 't.id', 'h.tool_id')
        .select('h.tool_id', 't.slug', 't.name', 't.name_en', 'h.url', 'h.status', 'h.reason', 'h.http_status', 'h.checked_at', 'h.consecutive_failures', 'h.last_ok_at')
        .orderBy([{ column: 'h.consecutive_failures', order: 'desc' }, { column: 't.id', order: 'asc' }])
        .limit(options.limit ?? 1000)
        .offset(options.offset ?? 0);
      if (options.status) query.where('h.status', options.status);
      return (await query).map(toHealth);
    },

    async countByStatus(): Promise<Record<LinkStatus, number>> {
      const rows = await db('link_health').select('status').count({ count: '*' }).groupBy('status');
      const counts: Record<LinkStatus, number> = { ok: 0, broken: 0, unknown: 0 };
      for (const row of rows as { status: LinkStatus; count: string | number }[]) counts[row.status] = Number(row.count);
      return counts;
    },

    /** A tool's checks, newest first. */
    async linkHistory(slug: string, limit = HISTORY_PER_TOOL): Promise<LinkCheck[]> {
      const rows = await db('link_checks as c')
        .join('tools as t', 't.id', 'c.tool_id')
        .where('t.slug', slug)
        .select('c.url', 'c.checked_at', 'c.status', 'c.reason', 'c.http_status', 'c.duration_ms')
        .orderBy([{ column: 'c.checked_at', order: 'desc' }, { column: 'c.id', order: 'desc' }])
        .limit(limit);
      return rows.map((row) => ({
        url: String(row.url),
        checkedAt: new Date(row.checked_at),
        status: row.status as LinkStatus,
        reason: String(row.reason),
        httpStatus: row.http_status === null ? null : Number(row.http_status),
        durationMs: Number(row.duration_ms),
      }));
    },
  };
}

export type LinkRepository = ReturnType<typeof createLinkRepository>;
