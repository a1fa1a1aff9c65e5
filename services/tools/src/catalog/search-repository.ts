import type { Knex } from 'knex';
import type { SearchDocument, SearchSource } from './search-document';
import type { QueryTerm, SearchPlan } from './search-query';
import { toolColumns, toTool, type DbToolRow, type ToolWithCategorySlug } from './tool-rows';

/** `%`, `_` and `\` in user input match themselves. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

interface Fragment {
  sql: string;
  bindings: unknown[];
}

function joinFragments(fragments: Fragment[], separator: string): Fragment {
  return { sql: fragments.map((fragment) => fragment.sql).join(separator), bindings: fragments.flatMap((fragment) => fragment.bindings) };
}

/**
 * Whether a tool matches a term. Every branch starts with a lookup in the GIN index on `keys` (exact keys,
 * so terms of any length are index-backed), the substring and pinyin branches then check the text itself.
 */
function matchCondition(term: QueryTerm, options: { typos: boolean }): Fragment {
  const branches: Fragment[] = [{ sql: '(s.keys @> ?::text[] AND s.raw LIKE ?)', bindings: [term.gramKeys, `%${escapeLike(term.text)}%`] }];
  for (const reading of term.pinyin) branches.push({ sql: '(s.keys @> ?::text[] AND s.pinyin LIKE ?)', bindings: [reading.keys, reading.pattern] });
  const lookups = [...term.exactKeys, ...(options.typos ? term.typoKeys : [])];
  if (lookups.length > 0) branches.push({ sql: 's.keys && ?::text[]', bindings: [lookups] });
  const joined = joinFragments(branches, ' OR ');
  return { sql: `(${joined.sql})`, bindings: joined.bindings };
}

/**
 * How well a tool matches a term, lower is better: exact name/slug/tag (its pinyin too), then prefix, then
 * from a word start, then substring (each a half step lower when only the initials match), then anywhere
 * else (description, category), then only by a typo or not at all. The `forms` texts hold one entry per
 * line (see SearchDocument), so `\nx:term\n` is a whole entry and `\nx:term` its start.
 */
const SEARCH_TIERS = { exact: 0, prefix: 2, word: 4, substring: 6, elsewhere: 8, typoOrNone: 10 } as const;

function tierExpression(term: QueryTerm): Fragment {
  const t = escapeLike(term.text);
  const match = matchCondition(term, { typos: false });
  return {
    sql: `CASE
      WHEN s.forms LIKE ? THEN ${SEARCH_TIERS.exact}
      WHEN s.initials_forms LIKE ? THEN ${SEARCH_TIERS.exact + 1}
      WHEN s.forms LIKE ? THEN ${SEARCH_TIERS.prefix}
      WHEN s.initials_forms LIKE ? THEN ${SEARCH_TIERS.prefix + 1}
      WHEN s.forms LIKE ? THEN ${SEARCH_TIERS.word}
      WHEN s.initials_forms LIKE ? THEN ${SEARCH_TIERS.word + 1}
      WHEN s.forms LIKE ? THEN ${SEARCH_TIERS.substring}
      WHEN ${match.sql} THEN ${SEARCH_TIERS.elsewhere}
      ELSE ${SEARCH_TIERS.typoOrNone} END`,
    bindings: [`%\nx:${t}\n%`, `%\nx:${t}\n%`, `%\nx:${t}%`, `%\nx:${t}%`, `%\nw:${t}%`, `%\nw:${t}%`, `%${t}%`, ...match.bindings],
  };
}

/** The same steps over the name alone (as written, pinyin, initials): the first tie-breaker. */
function nameTierExpression(term: QueryTerm): Fragment {
  const t = escapeLike(term.text);
  return {
    sql: `CASE WHEN s.name_forms LIKE ? THEN 0 WHEN s.name_forms LIKE ? THEN 1 WHEN s.name_forms LIKE ? THEN 2 WHEN s.name_forms LIKE ? THEN 3 ELSE 4 END`,
    bindings: [`%\nx:${t}\n%`, `%\nx:${t}%`, `%\nw:${t}%`, `%${t}%`],
  };
}

/**
 * The search as one statement: filter through the keys index, rank, page; `total` counts every match.
 * Exported for the plan check (EXPLAIN) in the tests.
 */
export function searchStatement(plan: SearchPlan, offset: number, limit: number): Fragment {
  const where = joinFragments(
    plan.required.map((term) => matchCondition(term, { typos: true })),
    ' AND ',
  );
  const terms = [...plan.required, ...plan.ranking];
  const score = joinFragments(terms.map(tierExpression), ' + ');
  const nameScore = joinFragments(terms.map(nameTierExpression), ' + ');
  return {
    // Each match's tool is fetched by its primary key (a LATERAL subquery the planner may not flatten):
    // a plain join let it hash-join a scan of the whole tools table once a query matched a few hundred tools.
    sql: `SELECT ${toolColumns.join(', ')}, count(*) OVER () AS total
      FROM tool_search s
      CROSS JOIN LATERAL (SELECT * FROM tools WHERE tools.id = s.tool_id OFFSET 0) t
      JOIN categories c ON c.id = t.category_id
      WHERE ${where.sql}
      ORDER BY (${score.sql}), (${nameScore.sql}), t.is_featured DESC, t.visits DESC, t.id ASC
      OFFSET ? LIMIT ?`,
    bindings: [...where.bindings, ...score.bindings, ...nameScore.bindings, offset, limit],
  };
}

function countStatement(plan: SearchPlan): Fragment {
  const where = joinFragments(
    plan.required.map((term) => matchCondition(term, { typos: true })),
    ' AND ',
  );
  return { sql: `SELECT count(*) AS total FROM tool_search s WHERE ${where.sql}`, bindings: where.bindings };
}

export interface SearchSourceRow extends SearchSource {
  toolId: number;
}

/** Which tools to (re)compute search documents for. */
export type SearchSourceScope =
  | { toolSlugs: string[] }
  | { categoryIds: number[] }
  /** Tools with no document or an older version, in id order, after `afterId`. */
  | { olderThanVersion: number; afterId: number; limit: number };

export function createSearchQueries(db: Knex) {
  return {
    async searchTools(plan: SearchPlan, offset: number, limit: number): Promise<{ tools: ToolWithCategorySlug[]; total: number }> {
      if (plan.required.length === 0) return { tools: [], total: 0 };
      const statement = searchStatement(plan, offset, limit);
      const result = await db.raw<{ rows: (DbToolRow & { total: string | number })[] }>(statement.sql, statement.bindings as Knex.RawBinding[]);
      const rows = result.rows;
      if (rows.length > 0) return { tools: rows.map(toTool), total: Number(rows[0]!.total) };
      if (offset === 0) return { tools: [], total: 0 };
      // A page past the end: no row carries the total.
      const count = countStatement(plan);
      const counted = await db.raw<{ rows: { total: string | number }[] }>(count.sql, count.bindings as Knex.RawBinding[]);
      return { tools: [], total: Number(counted.rows[0]?.total ?? 0) };
    },

    /** The fields a search document is made of, locked for update so that a concurrent writer waits for the new document. */
    async searchSources(scope: SearchSourceScope): Promise<SearchSourceRow[]> {
      const query = db('tools as t')
        .join('categories as c', 'c.id', 't.category_id')
        .select('t.id', 't.name', 't.slug', 't.tags', 't.description', 'c.name as category_name')
        .orderBy('t.id');
      if ('toolSlugs' in scope) query.whereIn('t.slug', scope.toolSlugs).forUpdate('t');
      else if ('categoryIds' in scope) query.whereIn('t.category_id', scope.categoryIds).forUpdate('t');
      else {
        query
          .leftJoin('tool_search as s', 's.tool_id', 't.id')
          .where('t.id', '>', scope.afterId)
          .andWhere((stale) => stale.whereNull('s.tool_id').orWhere('s.version', '<', scope.olderThanVersion))
          .limit(scope.limit)
          .forUpdate('t');
      }
      const rows: { id: number; name: string; slug: string; tags: string[] | null; description: string; category_name: string }[] = await query;
      return rows.map((row) => ({
        toolId: row.id,
        name: row.name,
        slug: row.slug,
        tags: row.tags ?? [],
        description: row.description,
        categoryName: row.category_name,
      }));
    },

    /** Stores documents; a row that already holds the same document is left alone (no index churn). */
    async writeSearchDocuments(entries: { toolId: number; version: number; document: SearchDocument }[]): Promise<void> {
      if (entries.length === 0) return;
      const rows = entries.map(({ toolId, version, document }) => ({
        tool_id: toolId,
        version,
        keys: document.keys,
        raw: document.raw,
        pinyin: document.pinyin,
        forms: document.forms,
        initials_forms: document.initialsForms,
        name_forms: document.nameForms,
      }));
      await db.raw(
        `INSERT INTO tool_search (tool_id, version, keys, raw, pinyin, forms, initials_forms, name_forms)
         SELECT (r->>'tool_id')::int, (r->>'version')::smallint, ARRAY(SELECT jsonb_array_elements_text(r->'keys')),
                r->>'raw', r->>'pinyin', r->>'forms', r->>'initials_forms', r->>'name_forms'
         FROM jsonb_array_elements(?::jsonb) AS r
         ON CONFLICT (tool_id) DO UPDATE SET version = EXCLUDED.version, keys = EXCLUDED.keys, raw = EXCLUDED.raw,
           pinyin = EXCLUDED.pinyin, forms = EXCLUDED.forms, initials_forms = EXCLUDED.initials_forms, name_forms = EXCLUDED.name_forms
         WHERE (tool_search.version, tool_search.keys, tool_search.raw, tool_search.pinyin, tool_search.forms,
                tool_search.initials_forms, tool_search.name_forms)
           IS DISTINCT FROM (EXCLUDED.version, EXCLUDED.keys, EXCLUDED.raw, EXCLUDED.pinyin, EXCLUDED.forms,
                EXCLUDED.initials_forms, EXCLUDED.name_forms)`,
        [JSON.stringify(rows)],
      );
    },
  };
}

export type SearchQueries = ReturnType<typeof createSearchQueries>;
