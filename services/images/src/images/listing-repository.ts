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

/**
 * Whether the trigram index can find a keyword's names: pg_trgm takes a LIKE pattern's trigrams from
 * its runs of letters and digits, and a pattern without one makes it read the whole index (every
 * user's names). Such a keyword (`ab`, `a-b`) is searched by walking the user's names instead.
 */
function hasTrigram(keyword: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(keyword);
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

/** The largest page the API serves; the page statement tells the planner so. */
export const LIST_MAX_LIMIT = 100;

/**
 * The user's rows in the status (and category); `status` is one of two literals, never input. The user
 * and category reach the plan as subqueries' results, which the planner prices without looking into
 * (as a user among the users there are, not as the user with most of the rows): so the statements keep
 * one plan for every user and page, and walk the user's own index whoever the user is. `userColumn`
 * `user_id + 0` keeps the per-user indexes out (searchSql's trigram page).
 */
const owned = (status: ImageStatus, byCategory: boolean, userColumn = 'user_id') =>
  `${userColumn} = (SELECT :userId::bigint) AND status = '${status}'${byCategory ? ' AND category_id = (SELECT :categoryId::bigint)' : ''}`;

/**
 * A page with its exact total (a sum over the per-category counters). The totals' one row is joined
 * to the page, so a page past the end still answers one row: the total, with the page's columns null.
 *
 * The page is picked as ids first, an index-only walk of the user's index, and only its rows are read
 * whole (`OFFSET 0` keeps each read a lookup by id). Picked as whole rows, with the user's id in view,
 * Postgres weighed the walk of the user's index against a walk of the primary key newest first that
 * filters by user, priced as if the user's rows were spread evenly through the table: for a user with
 * most of the rows it took the primary key, and when another user's rows were the newest it read every
 * one of them first (a user with 1,000,000 images and a newer one with 100,000: 12–20 ms for a page of
 * 20 against 0.1 ms; test/scale.test.ts holds it). The walk's LIMIT LIST_MAX_LIMIT tells the planner
 * how small a page is: with only the page size's subquery it would plan for a tenth of the user's rows.
 */
const pageSql = (status: ImageStatus, byCategory: boolean) => {
  const keys = status === 'binned' ? 'deleted_at, id' : 'id';
  return `
  SELECT page.*, totals.total
  FROM (SELECT coalesce(sum(count), 0) AS total FROM image_counts WHERE ${owned(status, byCategory)}) AS totals
  LEFT JOIN LATERAL (
    SELECT listed.*
    FROM (
      SELECT id FROM (
        SELECT ${keys} FROM images WHERE ${owned(status, byCategory)}
        ORDER BY ${pageOrder(status, '')} OFFSET (SELECT :offset::bigint) LIMIT ${LIST_MAX_LIMIT}
      ) AS upto
      ORDER BY ${pageOrder(status, '')} LIMIT (SELECT :limit::bigint)
    ) AS picked
    CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM images WHERE images.id = picked.id OFFSET 0) AS listed
  ) AS page ON true
  WHERE ${LIVE}
  ORDER BY ${pageOrder(status, 'page.')}`;
};

/**
 * How a search's total is found. Counting every match of a common word is what made it slow: 100,000
 * of 1,000,000 names matching "holiday" cost a walk or a bitmap of all of them, on every page. So a
 * search first reads the user's newest ESTIMATE_SAMPLE names (in the status and category, an
 * index-only walk: see below) and the user's image count there (the per-category counters). When the
 * sample is all there is, its matches are the exact total. When it finds the word at most
 * RARE_IN_SAMPLE times (a share too small to estimate from: one hit in 1,000 names may stand for 50
 * matches or 3,000), or its share applied to the image count is at most COUNTED_UP_TO, the word is
 * rare: its matches are counted (up to EXACT_UP_TO + 1), which the trigram index does cheaply.
 * Beyond that the total is an estimate (the share times the count) and the answer says so
 * (`total_estimated`: the images README, "Keyword search totals"). Counting a word the sample finds more often costs
 * a walk of all the user's names or a bitmap of every user's matches: for 1,000 matches among
 * 100,000 names, 15–140 ms on a busy machine, far above what a page may cost.
 */
export const EXACT_UP_TO = 1_000;
export const ESTIMATE_SAMPLE = 1_000;
export const COUNTED_UP_TO = 500;
export const RARE_IN_SAMPLE = 2;

/**
 * A page of the names containing a pattern, and what its total is made from, in one snapshot.
 *
 * The walks read the index (user_id, status, id DESC, lower(original_name)) INCLUDE (original_name)
 * (and its per-category twin; migrations/20261128045000_search_walk_indexes): Postgres takes the
 * lowered name from the index instead of lowering each row's name again (about 3 µs a row, which was
 * most of a walk's cost) and never visits the table for rows that do not match. The page is chosen as
 * ids first and only its rows are read whole.
 *
 * One plan serves every search. Planned for each pattern, as it was, the statement cost about 0.5 ms
 * of Postgres CPU in planning alone, about half of a rare word's search (docs/benchmarks.md, "Keyword
 * search"). So no value reaches the planner: each is a subquery's result, priced without being looked
 * into, and Postgres keeps the generic plan after its first five runs (pg_prepared_statements shows
 * it: test/scale.test.ts). Nor does the plan choose between the walk and the trigram index, since it
 * would choose blind: both page shapes are in it, each held to its index, behind one-time filters on
 * the sample's decision. A rare word (RARE_IN_SAMPLE, COUNTED_UP_TO) takes its page and its count
 * (a scalar subquery behind a CASE) from the trigram index; a common one walks the user's index
 * newest first and stops after offset + limit matches. A keyword without a trigram (hasTrigram) is
 * walked and counted by the walk whatever the sample says. The trigram index reads every user's
 * matches of a word, so a word rare among a user's names but common among everyone's costs those:
 * the price of deciding by the user's own sample. A page past the end still answers one row: the
 * counts alone.
 */
const searchSql = (status: ImageStatus, byCategory: boolean) => {
  // Every value reaches the plan as a subquery's result, which the planner prices without looking into:
  // the plan is the same for every user, pattern and page, so Postgres keeps one.
  // LIKE's own escape character is the backslash containsPattern escapes with: an ESCAPE clause here
  // would be applied to the pattern again for every name compared (like_escape of a parameter).
  const pattern = '(SELECT lower(:pattern))';
  const mine = (userColumn: string) => owned(status, byCategory, userColumn);
  const matches = `lower(original_name) LIKE ${pattern}`;
  // The two ways to a page, each kept to its index whatever the planner guesses of the pattern: a walk
  // of the per-user index newest first (`IS TRUE` keeps the trigram index out: it takes only a bare
  // LIKE), or the trigram index alone (`user_id + 0` keeps the per-user indexes out).
  const walked = `${mine('user_id')} AND (${matches}) IS TRUE`;
  const trigram = `${mine('user_id + 0')} AND ${matches}`;
  const page = `ORDER BY ${pageOrder(status, '')} LIMIT (SELECT :limit::bigint) OFFSET (SELECT :offset::bigint)`;
  return `
  WITH counts AS (
    SELECT owned, sampled, sample_matched,
      sampled >= ${ESTIMATE_SAMPLE} AND (sample_matched <= ${RARE_IN_SAMPLE} OR owned * sample_matched <= ${COUNTED_UP_TO * ESTIMATE_SAMPLE}) AS rare,
      (SELECT :trigrams::boolean) AS by_trigram
    FROM (
      SELECT (SELECT coalesce(sum(count), 0) FROM image_counts WHERE ${mine('user_id')}) AS owned, newest.*
      FROM (
        SELECT count(*) AS sampled, count(*) FILTER (WHERE name LIKE ${pattern}) AS sample_matched
        FROM (SELECT lower(original_name) AS name FROM images WHERE ${mine('user_id')} ORDER BY id DESC LIMIT ${ESTIMATE_SAMPLE}) AS sample
      ) AS newest
    ) AS known
  )
  SELECT page.*, counts.owned, counts.sampled, counts.sample_matched,
    CASE WHEN counts.rare THEN (
      SELECT count(*) FROM (
        (SELECT 1 FROM images WHERE ${trigram} AND (SELECT by_trigram FROM counts) LIMIT ${EXACT_UP_TO + 1})
        UNION ALL
        (SELECT 1 FROM images WHERE ${walked} AND NOT (SELECT by_trigram FROM counts) ORDER BY id DESC LIMIT ${EXACT_UP_TO + 1})
      ) AS upto
    ) END AS matched
  FROM counts
  LEFT JOIN LATERAL (
    SELECT ${COLUMNS} FROM images WHERE id IN (
      (SELECT id FROM images WHERE ${trigram} AND (SELECT rare AND by_trigram FROM counts) ${page})
      UNION ALL
      (SELECT id FROM images WHERE ${walked} AND NOT (SELECT rare AND by_trigram FROM counts) ${page})
    )
  ) AS page ON true
  WHERE ${LIVE}
  ORDER BY ${pageOrder(status, 'page.')}`;
};

/** What a search's total is made from (searchSql's counts). `matched` only when they were counted. */
export interface SearchCounts {
  /** The user's images in the status and category. */
  owned: number;
  /** How many of their newest were sampled (ESTIMATE_SAMPLE, or fewer when that is all there are), and how many of those match. */
  sampled: number;
  sampleMatched: number;
  /** The matches counted up to EXACT_UP_TO + 1, or null when the sample found the word common. */
  matched: number | null;
}

/**
 * A search's total from its counts: exact when the sample was every image there is, when the matches
 * were counted and are at most EXACT_UP_TO, or when the page found the end (a partial page: the
 * matches before it and on it). Otherwise an estimate: the image count times the sample's share, kept
 * consistent with what is known (more than EXACT_UP_TO when the count reached past it, at least the
 * matches up to the end of a full page, at most the images there are).
 */
export function searchTotal(counts: SearchCounts, page: { offset: number; limit: number; rows: number }): { total: number; estimated: boolean } {
  if (counts.sampled < ESTIMATE_SAMPLE) return { total: counts.sampleMatched, estimated: false };
  if (counts.matched !== null && counts.matched <= EXACT_UP_TO) return { total: counts.matched, estimated: false };
  if (page.rows > 0 && page.rows < page.limit) return { total: page.offset + page.rows, estimated: false };
  let total = Math.round((counts.owned * counts.sampleMatched) / ESTIMATE_SAMPLE);
  if (counts.matched !== null) total = Math.max(total, EXACT_UP_TO + 1);
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
    trigrams: filter.keyword ? hasTrigram(filter.keyword) : false,
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
     * transactions as the rows); with one it is counted (up to EXACT_UP_TO) for a rare word, and estimated
     * beyond (`totalEstimated`: see searchTotal).
     */
    async list(filter: ListFilter): Promise<{ rows: ListedImage[]; total: number; totalEstimated?: true } | null> {
      if (filter.limit > LIST_MAX_LIMIT) throw new RangeError(`a page holds at most ${LIST_MAX_LIMIT} images, not ${filter.limit}`);
      const rows = await statementFor(filter)(filter);
      // A live credential reads one row at least: a page past the end (or of nothing) is one row of the counts alone.
      if (rows.length === 0) return null;
      const first = rows[0]!;
      const listed = rows.filter((row) => row.id !== null).map(toListed);
      if (first.sampled === undefined) return { rows: listed, total: Number(first.total) };
      const { total, estimated } = searchTotal(
        {
          owned: Number(first.owned),
          sampled: Number(first.sampled),
          sampleMatched: Number(first.sample_matched),
          matched: first.matched === null || first.matched === undefined ? null : Number(first.matched),
        },
        { offset: filter.offset, limit: filter.limit, rows: listed.length },
      );
      return { rows: listed, total, ...(estimated ? { totalEstimated: true as const } : {}) };
    },
  };
}
