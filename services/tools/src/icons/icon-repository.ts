import type { Knex } from 'knex';

/** A tool as the icon job sees it. */
export interface IconTarget {
  toolId: number;
  slug: string;
  url: string;
  /** The icon URL the import gave, tried before the site's own. */
  importedIcon: string;
  overrideUrl: string | null;
  overrideFile: boolean;
}

export interface StoredIcon {
  content: Buffer;
  contentType: string;
  version: string;
}

export interface IconState {
  slug: string;
  version: string | null;
  sourceUrl: string | null;
  overrideUrl: string | null;
  overrideFile: boolean;
  fetchedAt: Date | null;
  failures: number;
  nextTryAt: Date | null;
  lastError: string | null;
}

const targetColumns = ['t.id as toolId', 't.slug', 't.url', 't.icon as importedIcon', 'i.override_url as overrideUrl', 'i.override_file as overrideFile'];

function toTarget(row: Record<string, unknown>): IconTarget {
  return {
    toolId: Number(row.toolId),
    slug: String(row.slug),
    url: String(row.url),
    importedIcon: String(row.importedIcon ?? ''),
    overrideUrl: (row.overrideUrl as string | null) ?? null,
    overrideFile: row.overrideFile === true,
  };
}

/** Icons as stored in `tool_icons`: the bytes we serve and the state of fetching them. */
export function createIconRepository(db: Knex) {
  const targets = () => db('tools as t').leftJoin('tool_icons as i', 'i.tool_id', 't.id');

  return {
    /** Tools never tried, or whose next try is due; an icon the operator gave as a file is never refetched. */
    async dueTargets(now: Date, limit: number): Promise<IconTarget[]> {
      const rows = await targets()
        .select(targetColumns)
        .where((where) => where.whereNull('i.tool_id').orWhere((due) => due.where('i.next_try_at', '<=', now).andWhere('i.override_file', false)))
        .orderByRaw('i.next_try_at ASC NULLS FIRST, t.id ASC')
        .limit(limit);
      return rows.map(toTarget);
    },

    async allTargets(): Promise<IconTarget[]> {
      const rows = await targets().select(targetColumns).where((where) => where.whereNull('i.override_file').orWhere('i.override_file', false)).orderBy('t.id');
      return rows.map(toTarget);
    },

    async targetBySlug(slug: string): Promise<IconTarget | undefined> {
      const row = await targets().select(targetColumns).where('t.slug', slug).first();
      return row ? toTarget(row) : undefined;
    },

    /** Stores a fetched (or given) icon; the failure count starts again. */
    async store(toolId: number, icon: StoredIcon & { sourceUrl: string; fromFile: boolean }, fetchedAt: Date, nextTryAt: Date): Promise<void> {
      const row = {
        tool_id: toolId,
        content: icon.content,
        content_type: icon.contentType,
        version: icon.version,
        source_url: icon.sourceUrl,
        override_file: icon.fromFile,
        fetched_at: fetchedAt,
        failures: 0,
        next_try_at: nextTryAt,
        last_error: null,
      };
      await db('tool_icons').insert(row).onConflict('tool_id').merge(Object.keys(row).filter((column) => column !== 'tool_id'));
    },

    /**
     * Counts a failed attempt and schedules the next one after base * 2^(failures so far), at most `max`.
     * A stored icon stays: a site that is down today keeps the icon it had.
     */
    async recordFailure(toolId: number, error: string, now: Date, backoff: { baseSeconds: number; maxSeconds: number }): Promise<void> {
      await db.raw(
        `INSERT INTO tool_icons (tool_id, failures, next_try_at, last_error) VALUES (?, 1, ?::timestamptz + ? * interval '1 second', ?)
         ON CONFLICT (tool_id) DO UPDATE SET
           failures = tool_icons.failures + 1,
           next_try_at = ?::timestamptz + least(? * power(2, tool_icons.failures), ?) * interval '1 second',
           last_error = EXCLUDED.last_error`,
        [toolId, now, backoff.baseSeconds, error.slice(0, 1000), now, backoff.baseSeconds, backoff.maxSeconds],
      );
    },

    /** The operator's icon URL (null: none); the next run tries it at once. */
    async setOverrideUrl(toolId: number, url: string | null, now: Date): Promise<void> {
      await db('tool_icons')
        .insert({ tool_id: toolId, override_url: url, override_file: false, next_try_at: now })
        .onConflict('tool_id')
        .merge(['override_url', 'override_file', 'next_try_at']);
    },

    async iconBySlug(slug: string): Promise<StoredIcon | undefined> {
      const row = await db('tool_icons as i')
        .join('tools as t', 't.id', 'i.tool_id')
        .where('t.slug', slug)
        .whereNotNull('i.version')
        .first('i.content', 'i.content_type', 'i.version');
      return row ? { content: row.content as Buffer, contentType: String(row.content_type), version: String(row.version) } : undefined;
    },

    /** slug -> version of every stored icon: what the website links (a few bytes per tool). */
    async versionsBySlug(): Promise<Map<string, string>> {
      const rows = await db('tool_icons as i').join('tools as t', 't.id', 'i.tool_id').whereNotNull('i.version').select('t.slug', 'i.version');
      return new Map(rows.map((row) => [String(row.slug), String(row.version)]));
    },

    /** One tool's icon state (the admin's tool page); undefined: no such tool. */
    async stateBySlug(slug: string): Promise<IconState | undefined> {
      return (await this.states({ slug }))[0];
    },

    async states(options: { failingOnly?: boolean; slug?: string } = {}): Promise<IconState[]> {
      const query = db('tools as t')
        .leftJoin('tool_icons as i', 'i.tool_id', 't.id')
        .select('t.slug', 'i.version', 'i.source_url', 'i.override_url', 'i.override_file', 'i.fetched_at', 'i.failures', 'i.next_try_at', 'i.last_error')
        .orderBy('t.id');
      if (options.failingOnly) query.where('i.failures', '>', 0);
      if (options.slug !== undefined) query.where('t.slug', options.slug);
      const rows = await query;
      return rows.map((row) => ({
        slug: String(row.slug),
        version: row.version ?? null,
        sourceUrl: row.source_url ?? null,
        overrideUrl: row.override_url ?? null,
        overrideFile: row.override_file === true,
        fetchedAt: row.fetched_at ? new Date(row.fetched_at) : null,
        failures: Number(row.failures ?? 0),
        nextTryAt: row.next_try_at ? new Date(row.next_try_at) : null,
        lastError: row.last_error ?? null,
      }));
    },
  };
}

export type IconRepository = ReturnType<typeof createIconRepository>;
