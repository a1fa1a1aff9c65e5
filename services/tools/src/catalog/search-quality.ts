import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Search quality over a judged query set (data/search-judgements.json, judged over data/sample-tools.json).
 * Used by the quality test and by the benchmark.
 */

const judgementSchema = z.object({
  query: z.string().min(1),
  /** What kind of query it is (hanzi, pinyin, initials, typo, …): for the per-kind report. */
  kind: z.string().min(1),
  /** The slug that should come first. */
  first: z.string().min(1),
  /** The slugs a user expects to find. */
  expected: z.array(z.string().min(1)).min(1),
  note: z.string().optional(),
});
const judgementFileSchema = z.object({ description: z.string().optional(), queries: z.array(judgementSchema).min(1) });

export type SearchJudgement = z.infer<typeof judgementSchema>;

export const SUCCESS_AT_3_TARGET = 0.95;
export const RECALL_AT_10_TARGET = 0.9;

/** The judged set, found from src/ (tsx, jest) and from dist/src/ (node). */
export function searchJudgementsPath(): string {
  const candidates = [path.resolve(__dirname, '../../data/search-judgements.json'), path.resolve(__dirname, '../../../data/search-judgements.json')];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`search judgements not found (looked in ${candidates.join(', ')})`);
  return found;
}

export function loadSearchJudgements(file = searchJudgementsPath()): SearchJudgement[] {
  return judgementFileSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8'))).queries;
}

export interface QueryQuality {
  query: string;
  kind: string;
  first: string;
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
}

/** `search` returns the slugs found for a query, best first (ten are enough). */
export async function evaluateSearch(search: (query: string) => Promise<string[]>, judgements: SearchJudgement[]): Promise<SearchQuality> {
  const perQuery: QueryQuality[] = [];
  for (const judgement of judgements) {
    const top = (await search(judgement.query)).slice(0, 10);
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
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return {
    successAt3: mean(perQuery.map((quality) => (quality.successAt3 ? 1 : 0))),
    recallAt10: mean(perQuery.map((quality) => quality.recallAt10)),
    perQuery,
  };
}

/** A few lines for a terminal: the two figures, then every query that misses. */
export function describeSearchQuality(quality: SearchQuality): string {
  const lines = [`search quality over ${quality.perQuery.length} judged queries: success@3 ${quality.successAt3.toFixed(3)}, recall@10 ${quality.recallAt10.toFixed(3)}`];
  for (const entry of quality.perQuery) {
    if (entry.successAt3 && entry.recallAt10 === 1) continue;
    lines.push(
      `  ${entry.query} [${entry.kind}]: first ${entry.first} at ${entry.rankOfFirst ?? '-'}, recall ${entry.recallAt10.toFixed(2)}` +
        (entry.missing.length ? `, missing ${entry.missing.join(' ')}` : '') +
        `; top ${entry.top.slice(0, 5).join(' ')}`,
    );
  }
  return lines.join('\n');
}
