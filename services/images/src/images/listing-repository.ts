import type { Knex } from 'knex';
import { namedQuery } from '../db/named-query';
import { LISTED_COLUMNS, toListed, type ImageStatus, type ListedImage } from './image-rows';

export interface ListFilter {
  userId: number;
  /** The credential the page is read for, confirmed live at `at` by the page's own statement. */
  credential: { id: number; at: Date };
  status: 'stored' | 'binned';
  categoryId?: number;
  keyword?: string;
  limit: number;
  offset: number;
}

/** LIKE pattern for a literal substring: %, _ and the escape character itself lose their meaning. */
function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Newest first; the bin by when each image was deleted. As SQL over the columns of `prefix`. */
function pageOrder(status: ImageStatus, prefix: string): string {
  return status === 'binned' ? `${prefix}deleted_at DESC, ${prefix}id DESC` : `${prefix}id DESC`;
}

const COLUMNS = LISTED_COLUMNS.join(', ');

/**
 * The page statements confirm the credential the page is read for in their own snapshot
 * (credential_live, migrations/20261126010000_credential_live): a live credential reads one row at
 * least, a dead one none. That is what lets the one auth place answer a list or bin page on a
 * principal it recalled from memory without a lookup (see http/authenticate.ts).
 */
const LIVE = 'credential_live(:credentialId::bigint, :userId::bigint, :at::timestamptz)';

/** The user's rows in the status (and category); `status` is one of two literals, never input. */
const owned = (status: ImageStatus, byCategory: boolean) =>
  `user_id = :userId AND status = '${status}'${byCategory ? ' AND category_id = :categoryId' : ''}`;

/**
 * A page with its exact total (a sum over the per-category counters). The totals' one row is joined
 * to the page, so a page past the end still answers one row: the total, with the page's columns null.
 */
const pageSql = (status: ImageStatus, byCategory: boolean) => `
  SELECT page.*, totals.total
  FROM (SELECT coalesce(sum(count), 0) AS total FROM image_counts WHERE ${owned(status, byCategory)}) AS totals
  LEFT JOIN LATERAL (
    SELECT ${COLUMNS} FROM images WHERE ${owned(status, byCategory)} ORDER BY ${pageOrder(status, '')} LIMIT :limit OFFSET :offset
  ) AS page ON true
  WHERE ${LIVE}
  ORDER BY ${pageOrder(status, 'page.')}`;

/**
 * How many matching names a search counts, at most, for its exact total; and how many of the user's
 * newest images (in the status and category) it samples for an estimate beyond that. Counting every
 * match of a common word is what made it slow: 100,000 of 1,000,000 names matching "holiday" cost a
 * bitmap of all of them and a recheck of each row (tens of ms alone, over 300 ms at c=16 on 2 cores),
 * on every page. Beyond EXACT_UP_TO matches the total is an estimate, and the answer says so
 * (`total_estimated`, docs/api-decisions.md "Keyword search totals").
 */
export const EXACT_UP_TO = 1_000;
export const ESTIMATE_SAMPLE = 1_000;

/**
 * A page of the names containing a pattern, and what its total is made from, in one snapshot: the
 * matches counted up to EXACT_UP_TO + 1 (a LIMIT under the count, so a common word stops early;
 * newest first, as the page: without an order Postgres chose a sequential scan, which for a user whose
 * rows lie after another's 1,000,000 read 417,290 rows before its first match, 719 ms); only
 * when there are more, the user's image count in the status and category (the counters, as for a
 * plain page) and how many of their newest ESTIMATE_SAMPLE names match (those two are scalar
 * subqueries behind a CASE: Postgres runs them only when the CASE needs them). The page itself has no
 * window count, so Postgres may walk the (user, status, id) index newest first and stop after the
 * page for a common word, or take the trigram index for a rare one: its choice, by the pattern's
 * estimated selectivity. Its best plan depends on the pattern, which a generic plan cannot see;
 * Postgres keeps planning it for each run's values (with LIMIT and OFFSET as parameters it prices a
 * generic plan far above a custom one). A page past the end still answers one row: the counts alone.
 */
const searchSql = (status: ImageStatus, byCategory: boolean) => {
  const matches = `lower(original_name) LIKE lower(:pattern) ESCAPE '\\'`;
  const matching = `${owned(status, byCategory)} AND ${matches}`;
  return `
  SELECT page.*, counted.matched,
    CASE WHEN counted.matched > ${EXACT_UP_TO} THEN (SELECT coalesce(sum(count), 0) FROM image_counts WHERE ${owned(status, byCategory)}) END AS owned,
    CASE WHEN counted.matched > ${EXACT_UP_TO} THEN (
      SELECT count(*) FILTER (WHERE ${matches}) FROM (SELECT original_name FROM images WHERE ${owned(status, byCategory)} ORDER BY id DESC LIMIT ${ESTIMATE_SAMPLE}) AS newest
    ) END AS sample_matched
  FROM (SELECT count(*) AS matched FROM (SELECT 1 FROM images WHERE ${matching} ORDER BY id DESC LIMIT ${EXACT_UP_TO + 1}) AS upto) AS counted
  LEFT JOIN LATERAL (
    SELECT ${COLUMNS} FROM images WHERE ${matching} ORDER BY ${pageOrder(status, '')} LIMIT :limit OFFSET :offset
  ) AS page ON true
  WHERE ${LIVE}
  ORDER BY ${pageOrder(status, 'page.')}`;
};

/**
 * A search's total from its counts: exact when at most EXACT_UP_TO names match, when the user's
 * images fit in the sample, or when the page found the end (a partial page: the matches before it
 * and on it). Otherwise an estimate: the user's images in the status and category times the share of
 * their newest ESTIMATE_SAMPLE that match, kept consistent with what the page shows (more than
 * EXACT_UP_TO, at least the matches up to the end of a full page, at most the images there are).
 */
export function searchTotal(counts: { matched: number; owned: number | null; sampleMatched: number | null }, page: { offset: number; limit: number; rows: number }): { total: number; estimated: boolean } {
  if (counts.matched <= EXACT_UP_TO || counts.owned === null || counts.sampleMatched === null) return { total: counts.matched, estimated: false };
  if (page.rows > 0 && page.rows < page.limit) return { total: page.offset + page.rows, estimated: false };
  if (counts.owned <= ESTIMATE_SAMPLE) return { total: counts.sampleMatched, estimated: false };
  let total = Math.round((counts.owned * counts.sampleMatched) / ESTIMATE_SAMPLE);
  total = Math.max(total, EXACT_UP_TO + 1);
  // A full page: at least one more may follow. An empty page past the end: no more than the offset.
  total = page.rows > 0 ? Math.max(total, page.offset + page.rows + 1) : Math.min(total, page.offset);
  return { total: Math.min(total, counts.owned), estimated: true };
}

/** The list and bin pages of a user's images. */
export function createListingRepository(db: Knex, options: { namedStatements: boolean }) {
  const values = (filter: ListFilter) => ({
    userId: filter.userId,
    categoryId: filter.categoryId ?? null,
    pattern: filter.keyword ? containsPattern(filter.keyword) : null,
    limit: filter.limit,
    offset: filter.offset,
    credentialId: filter.credential.id,
    at: filter.credential.at,
  });
  // One statement per status, filter and keyword-or-not: each has one name and one SQL text.
  const statements = new Map<string, (filter: ListFilter) => Promise<Array<Record<string, unknown>>>>();
  const statementFor = (filter: ListFilter) => {
    const byCategory = filter.categoryId !== undefined;
    const search = filter.keyword !== undefined && filter.keyword !== '';
    const name = `images_${search ? 'search' : 'page'}_${filter.status}${byCategory ? '_category' : ''}`;
    let statement = statements.get(name);
    if (!statement) {
      const sql = search ? searchSql(filter.status, byCategory) : pageSql(filter.status, byCategory);
      statement = namedQuery(db, name, sql, values, { named: options.namedStatements });
      statements.set(name, statement);
    }
    return statement;
  };

  return {
    /**
     * A page and the exact total; null when the filter's credential is not live. Without a keyword the
     * total is a sum over the user's per-category counters (image_counts, kept by triggers in the same
     * transactions as the rows); with one it is counted up to EXACT_UP_TO matches, and estimated
     * beyond (`totalEstimated`: see searchTotal).
     */
    async list(filter: ListFilter): Promise<{ rows: ListedImage[]; total: number; totalEstimated?: true } | null> {
      const rows = await statementFor(filter)(filter);
      // A live credential reads one row at least: a page past the end (or of nothing) is one row of the counts alone.
      if (rows.length === 0) return null;
      const first = rows[0]!;
      const listed = rows.filter((row) => row.id !== null).map(toListed);
      if (first.matched === undefined) return { rows: listed, total: Number(first.total) };
      const nullable = (value: unknown) => (value === null || value === undefined ? null : Number(value));
      const { total, estimated } = searchTotal(
        { matched: Number(first.matched), owned: nullable(first.owned), sampleMatched: nullable(first.sample_matched) },
        { offset: filter.offset, limit: filter.limit, rows: listed.length },
      );
      return { rows: listed, total, ...(estimated ? { totalEstimated: true as const } : {}) };
    },
  };
}
