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
 * A page of the names containing a pattern, with the count of all that match, counted in the same
 * pass (a window over them, which the trigram index finds). A page past the end still answers one
 * row; only then are the matches counted on their own, and not at all for a first page (nothing
 * matched: 0). Its best plan depends on the pattern, which a generic plan cannot see; Postgres keeps
 * planning it for each run's values, as it does the list page (with LIMIT and OFFSET as parameters it
 * prices a generic plan far above a custom one): after seven runs of a pattern matching 999,950 of a
 * user's 1,000,000 names, pg_prepared_statements counted 0 generic plans and 7 custom ones, and a
 * rare pattern then took 0.7 ms.
 */
const searchSql = (status: ImageStatus, byCategory: boolean) => {
  const matching = `${owned(status, byCategory)} AND lower(original_name) LIKE lower(:pattern) ESCAPE '\\'`;
  return `
  SELECT page.*, coalesce(page.matching_total, CASE WHEN :offset::bigint = 0 THEN 0 ELSE (SELECT count(*) FROM images WHERE ${matching}) END) AS total
  FROM (SELECT 1) AS one
  LEFT JOIN LATERAL (
    SELECT ${COLUMNS}, count(*) OVER () AS matching_total FROM images WHERE ${matching} ORDER BY ${pageOrder(status, '')} LIMIT :limit OFFSET :offset
  ) AS page ON true
  WHERE ${LIVE}
  ORDER BY ${pageOrder(status, 'page.')}`;
};

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
     * transactions as the rows); with one it is counted through the trigram index, over the matching
     * rows only.
     */
    async list(filter: ListFilter): Promise<{ rows: ListedImage[]; total: number } | null> {
      const rows = await statementFor(filter)(filter);
      // A live credential reads one row at least: a page past the end (or of nothing) is one row of the total alone.
      if (rows.length === 0) return null;
      return { rows: rows.filter((row) => row.id !== null).map(toListed), total: Number(rows[0]!.total) };
    },
  };
}
