import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Search quality over a judged query set (data/search-judgements.json, judged over data/sample-tools.json;
 * data/search-judgements-heldout.json, a held-out set).
 * Used by the quality test and by the benchmark.
 */

const judgementSchema = z
  .object({
    query: z.string().min(1),
    /** What kind of query it is (hanzi, pinyin, tones, phrase, nothing, …): for the per-kind report. */
    kind: z.string().min(1),
    /** The slug that should come first; absent when the query must find nothing. */
    first: z.string().min(1).optional(),
    /** The slugs a user expects to find; empty when the query must find nothing (no tool is about it). */
    expected: z.array(z.string().min(1)),
    note: z.string().optional(),
  })
  .refine((judgement) => (judgement.expected.length === 0) === (judgement.first === undefined), {
    message: 'a judgement names a first tool exactly when it expects tools',
  });
const judgementFileSchema = z.object({ description: z.string().optional(), queries: z.array(judgementSchema).min(1) });

export type SearchJudgement = z.infer<typeof judgementSchema>;

export const SUCCESS_AT_3_TARGET = 0.95;
export const RECALL_AT_10_TARGET = 0.9;

/** The judged set, found from src/ (tsx, jest) and from dist/src/ (node). */
export function searchJudgementsPath(file = 'search-judgements.json'): string {
  const candidates = [path.resolve(__dirname, '../../data', file), path.resolve(__dirname, '../../../data', file)];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`search judgements not found (looked in ${candidates.join(', ')})`);
  return found;
}

export function loadSearchJudgements(file = searchJudgementsPath()): SearchJudgement[] {
  return judgementFileSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8'))).queries;
}

/**
 * The held-out set (data/search-judgements-heldout.json): queries written before a round of ranking changes,
 * judged the same way, and never tuned on. It tells whether the ranking generalizes beyond the judged set.
 */
export function loadHeldOutSearchJudgements(): SearchJudgement[] {
  return loadSearchJudgements(searchJudgementsPath('search-judgements-heldout.json'));
}

export interface QueryQuality {
  query: string;
  kind: string;
  first: string | undefined;
  /** 1-based position of `first` in the results, or null when it is not among them. */
  rankOfFirst: number | null;
  successAt3: boolean;
  recallAt10: number;
  /** Expected slugs missing from the first ten results. */
  missing: string[];
  top: string[];
}

export interface SearchQuality {
  /** Share of queries whose `first` is within the first three results. */
  successAt3: number;
  /** Mean over queries of the share of expected tools (at most ten of them) within the first ten results. */
  recallAt10: number;
  perQuery: QueryQuality[];
  perKind: KindQuality[];
}

export interface KindQuality {
  kind: string;
  queries: number;
  successAt3: number;
  recallAt10: number;
}

/** Every kind must reach this much, the whole set the overall targets. */
export const PER_KIND_TARGET = 0.85;

/** `search` returns the slugs found for a query, best first (ten are enough). */
export async function evaluateSearch(search: (query: string) => Promise<string[]>, judgements: SearchJudgement[]): Promise<SearchQuality> {
  const perQuery: QueryQuality[] = [];
  for (const judgement of judgements) {
    const top = (await search(judgement.query)).slice(0, 10);
    if (judgement.first === undefined) {
      // Must find nothing: a success only when the answer is empty.
      perQuery.push({ query: judgement.query, kind: judgement.kind, first: undefined, rankOfFirst: null, successAt3: top.length === 0, recallAt10: top.length === 0 ? 1 : 0, missing: [], top });
      continue;
    }
    const position = top.indexOf(judgement.first);
    const found = judgement.expected.filter((slug) => top.includes(slug));
    perQuery.push({
      query: judgement.query,
      kind: judgement.kind,
      first: judgement.first,
      rankOfFirst: position === -1 ? null : position + 1,
      successAt3: position !== -1 && position < 3,
      recallAt10: found.length / Math.min(judgement.expected.length, 10),
      missing: judgement.expected.filter((slug) => !top.includes(slug)),
      top,
    });
  }
  return { ...summarize(perQuery), perQuery, perKind: perKindQuality(perQuery) };
}

function summarize(entries: QueryQuality[]): { successAt3: number; recallAt10: number; queries: number } {
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    successAt3: mean(entries.map((quality) => (quality.successAt3 ? 1 : 0))),
    recallAt10: mean(entries.map((quality) => quality.recallAt10)),
    queries: entries.length,
  };
}

/** The two figures per kind of query, kinds in the order the judged set first names them. */
function perKindQuality(perQuery: QueryQuality[]): KindQuality[] {
  const kinds = [...new Set(perQuery.map((quality) => quality.kind))];
  return kinds.map((kind) => ({ kind, ...summarize(perQuery.filter((quality) => quality.kind === kind)) }));
}

/** A few lines for a terminal: the two figures, then every query that misses. */
export function describeSearchQuality(quality: SearchQuality): string {
  const lines = [`search quality over ${quality.perQuery.length} judged queries: success@3 ${quality.successAt3.toFixed(3)}, recall@10 ${quality.recallAt10.toFixed(3)}`];
  lines.push('  kind            queries  success@3  recall@10');
  for (const kind of quality.perKind) {
    lines.push(`  ${kind.kind.padEnd(16)}${String(kind.queries).padStart(7)}  ${kind.successAt3.toFixed(3).padStart(9)}  ${kind.recallAt10.toFixed(3).padStart(9)}`);
  }
  for (const entry of quality.perQuery) {
    if (entry.successAt3 && entry.recallAt10 === 1) continue;
    lines.push(
      `  ${entry.query} [${entry.kind}]: first ${entry.first ?? '(nothing)'} at ${entry.rankOfFirst ?? '-'}, recall ${entry.recallAt10.toFixed(2)}` +
        (entry.missing.length ? `, missing ${entry.missing.join(' ')}` : '') +
        `; top ${entry.top.slice(0, 5).join(' ')}`,
    );
  }
  return lines.join('\n');
}
