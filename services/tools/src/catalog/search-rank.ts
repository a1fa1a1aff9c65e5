import { FIELD_SLOTS, type PartMatches, type SearchIndex } from './search-engine-index';
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
  /** Tool positions in the index, best first: the first `need` of them. */
  order: number[];
  /** How many tools were found. */
  total: number;
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

function partScore(scores: Float32Array, tool: number, short: boolean): number {
  const slot = tool * FIELD_SLOTS;
  let best = 0;
  let bestField = 0;
  for (let field = 0; field < FIELD_SLOTS; field += 1) {
    if (scores[slot + field]! > best) [best, bestField] = [scores[slot + field]!, field];
  }
  // One or two letters start words in many fields of many tools: other fields say nothing then, the name still does.
  let extra = 0;
  for (let field = 0; field < FIELD_SLOTS; field += 1) {
    if (field !== bestField) extra += scores[slot + field]! * (field === NAME_FIELD ? NAME_SHARE : short ? 0 : OTHER_FIELDS_SHARE);
  }
  return best + extra;
}

/** A term's score per tool (dense, 0 = no match) and the tools it matches. */
interface TermMatches {
  tools: number[];
  scores: Float32Array;
}

function termScores(term: Term, lookup: (part: string) => PartMatches, size: number): TermMatches {
  const result: TermMatches = { tools: [], scores: new Float32Array(size) };
  const alternatives = term.alternatives.map((parts, index) => ({ parts, index }));
  scoreAlternatives(alternatives, lookup, result);
  if (result.tools.length === 0 && term.fallback) scoreAlternatives(term.fallback.map((parts) => ({ parts, index: 1 })), lookup, result);
  return result;
}

function scoreAlternatives(alternatives: { parts: string[]; index: number }[], lookup: (part: string) => PartMatches, result: TermMatches): void {
  alternatives.forEach(({ parts, index }) => {
    const factor = parts.length > 1 ? SPLIT_FACTOR : index === 0 ? 1 : ALIAS_FACTOR;
    const matches = parts.map(lookup).sort((a, b) => a.tools.length - b.tools.length);
    const short = parts.every((part) => (/^[a-z0-9]+$/.test(part) ? part.length <= 2 : [...part].length === 1));
    for (const tool of matches[0]!.tools) {
      let score = partScore(matches[0]!.scores, tool, short);
      for (let other = 1; other < matches.length && score > 0; other += 1) score = Math.min(score, partScore(matches[other]!.scores, tool, short));
      score *= factor;
      if (score > result.scores[tool]!) {
        if (result.scores[tool] === 0) result.tools.push(tool);
        result.scores[tool] = score;
      }
    }
  });
}

export function rankTools(plan: TermPlan, index: SearchIndex, tools: RankedTool[], need: number): Ranking {
  if (plan.required.length === 0) return { order: [], total: 0, mode: 'all' };
  const cache = new Map<string, PartMatches>();
  const lookup = (part: string) => {
    let found = cache.get(part);
    if (!found) cache.set(part, (found = index.lookup(part)));
    return found;
  };
  const size = index.size;
  const required = plan.required.map((term) => termScores(term, lookup, size));
  const counts = new Uint8Array(size);
  const touched: number[] = [];
  let best = 0;
  for (const term of required) {
    for (const tool of term.tools) {
      if (counts[tool] === 0) touched.push(tool);
      counts[tool] = counts[tool]! + 1;
      if (counts[tool]! > best) best = counts[tool]!;
    }
  }
  const complete = best === required.length;
  const candidates = complete ? touched.filter((tool) => counts[tool] === required.length) : touched;

  const optional = plan.optional.map((term) => termScores(term, lookup, size));
  let maxVisits = 0;
  for (const tool of candidates) maxVisits = Math.max(maxVisits, tools[tool]!.visits);
  const visitsScale = maxVisits > 0 ? VISITS_BONUS / Math.log1p(maxVisits) : 0;

  const score = new Float64Array(size);
  for (const tool of candidates) {
    let text = 0;
    for (const term of required) text += term.scores[tool]!;
    text /= required.length;
    let extra = 0;
    for (const term of optional) extra += term.scores[tool]!;
    if (optional.length > 0) text += (OPTIONAL_SHARE * extra) / optional.length;
    const { featured, visits } = tools[tool]!;
    // Coverage first (a partial answer lists tools matching more words first), then text and popularity.
    score[tool] = counts[tool]! * 1000 + text + (featured ? FEATURED_BONUS : 0) + Math.log1p(visits) * visitsScale;
  }
  for (const matches of cache.values()) index.release(matches);
  // Only the first `need` are ordered: a one-letter keyword finds thousands of tools at 10,000.
  let top = candidates;
  if (candidates.length > need * 2 && need > 0) {
    const sorted = Float64Array.from(candidates, (tool) => score[tool]!).sort();
    const threshold = sorted[sorted.length - need]!;
    top = candidates.filter((tool) => score[tool]! >= threshold);
  }
  top.sort((a, b) => score[b]! - score[a]! || tools[b]!.visits - tools[a]!.visits || a - b);
  return { order: top.slice(0, need), total: candidates.length, mode: complete || candidates.length === 0 ? 'all' : 'partial' };
}
