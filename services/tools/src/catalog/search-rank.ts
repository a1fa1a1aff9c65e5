import type { FieldScores, SearchIndex } from './search-engine-index';
import type { Term, TermPlan } from './search-terms';

/**
 * Ranks the tools of an index for a planned query. A tool is found when it matches every required term
 * (under any alternative); when none does, tools matching some of them are returned, most terms first.
 * Within that, text quality decides (see the tiers in search-engine-index.ts); being featured and visits
 * add at most POPULARITY_MAX, less than the step between an exact and a prefix match.
 */

export interface RankedTool {
  featured: boolean;
  visits: number;
}

export interface Ranking {
  /** Tool positions in the index, best first. */
  order: number[];
  /** Whether the tools found match every required term ('all') or only some ('partial'). */
  mode: 'all' | 'partial';
}

/** A match in another field adds this share of its score: a tool tagged and described 截图 beats one only tagged. */
const OTHER_FIELDS_SHARE = 0.08;
/** The name says what a tool is: a tool named 截图工具 and tagged 截图 beats one only tagged 截图, featured or not. */
const NAME_SHARE = 0.15;
const NAME_FIELD = 0;
/**
 * An alias is a translation, about as strong as pinyin: what the visitor literally typed (阿里云盘 for 云盘)
 * ranks first. Spaced words matched apart (`jie` … `tu`) are a weaker reading than joined.
 */
const ALIAS_FACTOR = 0.8;
const SPLIT_FACTOR = 0.9;
const OPTIONAL_SHARE = 0.2;
const FEATURED_BONUS = 5;
const VISITS_BONUS = 5;
export const POPULARITY_MAX = FEATURED_BONUS + VISITS_BONUS;

function partScore(fields: FieldScores, short: boolean): number {
  let best = 0;
  let bestField = 0;
  fields.forEach((score, field) => {
    if (score > best) [best, bestField] = [score, field];
  });
  // One or two letters start words in many fields of many tools: other fields say nothing then, the name still does.
  let extra = 0;
  fields.forEach((score, field) => {
    if (field !== bestField) extra += score * (field === NAME_FIELD ? NAME_SHARE : short ? 0 : OTHER_FIELDS_SHARE);
  });
  return best + extra;
}

function termScores(term: Term, lookup: (part: string) => Map<number, FieldScores>): Map<number, number> {
  const scores = new Map<number, number>();
  term.alternatives.forEach((parts, index) => {
    const factor = parts.length > 1 ? SPLIT_FACTOR : index === 0 ? 1 : ALIAS_FACTOR;
    const maps = parts.map(lookup).sort((a, b) => a.size - b.size);
    const short = parts.every((part) => (/^[a-z0-9]+$/.test(part) ? part.length <= 2 : [...part].length === 1));
    for (const [tool, fields] of maps[0]!) {
      let score = partScore(fields, short);
      for (const other of maps.slice(1)) {
        const found = other.get(tool);
        if (!found) {
          score = 0;
          break;
        }
        score = Math.min(score, partScore(found, short));
      }
      score *= factor;
      if (score > (scores.get(tool) ?? 0)) scores.set(tool, score);
    }
  });
  return scores;
}

export function rankTools(plan: TermPlan, index: SearchIndex, tools: RankedTool[]): Ranking {
  if (plan.required.length === 0) return { order: [], mode: 'all' };
  const cache = new Map<string, Map<number, FieldScores>>();
  const lookup = (part: string) => {
    let found = cache.get(part);
    if (!found) cache.set(part, (found = index.lookup(part)));
    return found;
  };
  const required = plan.required.map((term) => termScores(term, lookup));
  const counts = new Map<number, number>();
  for (const scores of required) for (const tool of scores.keys()) counts.set(tool, (counts.get(tool) ?? 0) + 1);
  let complete = false;
  for (const count of counts.values()) if (count === required.length) complete = true;
  const candidates = [...counts.keys()].filter((tool) => !complete || counts.get(tool) === required.length);

  const optional = plan.optional.map((term) => termScores(term, lookup));
  let maxVisits = 0;
  for (const tool of candidates) maxVisits = Math.max(maxVisits, tools[tool]!.visits);
  const visitsScale = maxVisits > 0 ? VISITS_BONUS / Math.log1p(maxVisits) : 0;

  const score = new Map<number, number>();
  for (const tool of candidates) {
    let text = 0;
    for (const scores of required) text += scores.get(tool) ?? 0;
    text /= required.length;
    let extra = 0;
    for (const scores of optional) extra += scores.get(tool) ?? 0;
    if (optional.length > 0) text += (OPTIONAL_SHARE * extra) / optional.length;
    const { featured, visits } = tools[tool]!;
    score.set(tool, text + (featured ? FEATURED_BONUS : 0) + Math.log1p(visits) * visitsScale);
  }
  candidates.sort(
    (a, b) =>
      counts.get(b)! - counts.get(a)! || score.get(b)! - score.get(a)! || tools[b]!.visits - tools[a]!.visits || a - b,
  );
  return { order: candidates, mode: complete || candidates.length === 0 ? 'all' : 'partial' };
}
