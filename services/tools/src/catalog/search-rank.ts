import { FIELD_SLOTS, type PartMatches, type SearchIndex } from './search-engine-index';
import type { Term, TermPlan } from './search-terms';

/**
 * Ranks the tools of an index for a planned query. A tool is found when it matches every required term
 * (under any alternative), or a tool one of the terms names (its whole name or slug, directly or through an
 * alias: `ps` in ps抠图); when none does, tools matching some of them are returned, most terms first.
 * Within that, text quality (see the tiers in search-engine-index.ts) weighed by popularity decides.
 *
 * Popularity is a tool's visits on a log scale from 100 visits (VISITS_FLOOR: 0) to a tenth of the catalog's
 * most visited tool's (at least 1,000: 1), from 0 to 1. It multiplies the text score by 1 + that share: in a
 * directory of 10,000 tools hundreds match 截图 as well as Snipaste does by their words (named 截图助手, tagged
 * 截图), and the tool people actually visit must come first. At most 2× (a tool visited as much as a tenth of
 * the most visited against one visited under 100 times); a tool with 3,000 visits against one with 30,000
 * (the most visited at 120,000) differs by about 1.17×, one with 300 against 3,000 by 1.4×. So popularity reorders matches of neighbouring tiers
 * (a tag against a name prefix, a tag against a name holding the word), never lifts a description match
 * (32, so 64 at most) over a name matched from its start (76 and up), and with few visits (a new directory)
 * text alone decides. Being featured, and visits again, add a few points on top: they settle ties within a tier.
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
/** A word naming a tool, matched by another tool (see rankTools): as much as the whole phrase. */
const NAMING_SHARE = OPTIONAL_SHARE;
/** A tool's name-field score when a part is its whole name, slug or a name part (the exact tier). */
const EXACT_NAME = 100;
const FEATURED_BONUS = 5;
const VISITS_BONUS = 5;
/** The most visited tool's text score counts this much more (tuned on the judged set at 10,000 tools: 0.5 → 0.92, 1 → 0.94 success@3). */
const VISITS_FACTOR = 1;
/**
 * Popularity counts from this many visits (below: 0) up to a tenth of the most visited tool's (above: 1):
 * below a hundred visits says nothing yet, and among the tools people do visit (a tenth of the top and more)
 * text decides, not which of two well-known tools has more. Between, the log of visits. Tuned on the judged
 * set at 10,000 tools (full log scale from 0: 0.944 / 0.930 → 0.974 / 0.961).
 */
const VISITS_FLOOR = 100;
const VISITS_SATURATION_SHARE = 0.1;
/**
 * The saturation is a tenth of the most visited tool's visits, or of this many if no tool has as many: in a
 * young directory 150 visits against 30 say little, and must not lift a name's substring over an exact name.
 */
const POPULARITY_SCALE_MIN = 10_000;

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
  /** Tools the term names: their whole name or slug (or a name part) is the term or one of its aliases (`ps` → photoshop). */
  named: number[];
}

/**
 * Typed arrays the size of the index, reused from query to query (ranking is synchronous, so one set per
 * process serves every query): allocated afresh, a one-letter query at 10,000 tools made ~200 KB of
 * garbage outside the heap, and the collections it brought were what the slowest searches waited for.
 * Given back zeroed where they were written.
 */
const scratch = { size: -1, floats: [] as Float32Array[], counts: new Uint8Array(0), score: new Float64Array(0), order: new Float64Array(0) };

function scratchFor(size: number): typeof scratch {
  if (scratch.size !== size) Object.assign(scratch, { size, floats: [], counts: new Uint8Array(size), score: new Float64Array(size), order: new Float64Array(size) });
  return scratch;
}

function termScores(term: Term, lookup: (part: string) => PartMatches, size: number): TermMatches {
  const result: TermMatches = { tools: [], scores: scratchFor(size).floats.pop() ?? new Float32Array(size), named: [] };
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
      let strongest = score;
      // Parts read apart (pdf … 合并) score halfway between their mean and their strongest: a tool tagged
      // PDF and describing 合并 (Smallpdf) is a weaker match than one tagged both, but not by the whole gap
      // between a tag and a description, which the mean alone kept and popularity could not bridge at 10,000
      // tools (Smallpdf 5th behind long-tail tools tagged 合并 for 有没有免费的在线pdf合并工具).
      let missing = false;
      for (let other = 1; other < matches.length && !missing; other += 1) {
        const part = partScore(matches[other]!.scores, tool, short);
        missing = part === 0;
        score += part;
        strongest = Math.max(strongest, part);
      }
      if (missing) continue;
      if (matches.length === 1 && matches[0]!.scores[tool * FIELD_SLOTS + NAME_FIELD]! >= EXACT_NAME) result.named.push(tool);
      score = ((score / matches.length + strongest) / 2) * factor;
      if (score > result.scores[tool]!) {
        if (result.scores[tool] === 0) result.tools.push(tool);
        result.scores[tool] = score;
      }
    }
  });
}

/**
 * The `need`-th largest score of the candidates, kept in a min-heap of `need` scores in `heap`: most
 * candidates of a one-letter keyword (9,000 at 10,000 tools) are one comparison with the heap's least, not
 * a place in a sort of them all.
 */
function nthLargest(candidates: number[], score: Float64Array, need: number, heap: Float64Array): number {
  let size = 0;
  for (const tool of candidates) {
    const value = score[tool]!;
    if (size < need) {
      // Sift up.
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= value) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = value;
    } else if (value > heap[0]!) {
      // Replace the least and sift down.
      let at = 0;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= size) break;
        if (child + 1 < size && heap[child + 1]! < heap[child]!) child += 1;
        if (heap[child]! >= value) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = value;
    }
  }
  return heap[0]!;
}

/** `maxVisits`: the visits of the catalog's most visited tool, popularity's scale. */
export function rankTools(plan: TermPlan, index: SearchIndex, tools: RankedTool[], need: number, maxVisits: number): Ranking {
  if (plan.required.length === 0) return { order: [], total: 0, mode: 'all' };
  const cache = new Map<string, PartMatches>();
  const lookup = (part: string) => {
    let found = cache.get(part);
    if (!found) cache.set(part, (found = index.lookup(part)));
    return found;
  };
  const size = index.size;
  const required = plan.required.map((term) => termScores(term, lookup, size));
  // A word that names a tool (`ps` in ps抠图 names Photoshop through its alias, `notion` in `notion 模板`)
  // finds that tool even without the other words (they say what to do with it), ranked as the name alone
  // would rank it. Of the other tools it is not required, only ranks (NAMING_SHARE): the rest of the query
  // says what they must do (抠图: remove.bg), and a long tail of tools whose pinyin initials happen to be
  // `ps` must not shut them out. Unless every word names a tool (`notion obsidian`): then all are required.
  const naming = required.map((term) => required.length > 1 && term.named.length > 0);
  const relaxed = naming.some(Boolean) && !naming.every(Boolean);
  const counted = relaxed ? required.filter((_, i) => !naming[i]) : required;
  const ranking = relaxed ? required.filter((_, i) => naming[i]) : [];
  const { counts, score, order } = scratchFor(size);
  const touched: number[] = [];
  let best = 0;
  for (const term of counted) {
    for (const tool of term.tools) {
      if (counts[tool] === 0) touched.push(tool);
      counts[tool] = counts[tool]! + 1;
      if (counts[tool]! > best) best = counts[tool]!;
    }
  }
  const complete = best === counted.length;
  const candidates = complete ? touched.filter((tool) => counts[tool] === counted.length) : touched;
  const named = new Map<number, number>();
  if (required.length > 1) {
    for (const term of required) for (const tool of term.named) if (counts[tool]! < counted.length) named.set(tool, Math.max(named.get(tool) ?? 0, term.scores[tool]!));
    for (const tool of named.keys()) if (complete || counts[tool] === 0) candidates.push(tool);
  }

  const optional = plan.optional.map((term) => termScores(term, lookup, size));
  const floor = Math.log1p(VISITS_FLOOR);
  const visitsScale = 1 / (Math.log1p(Math.max(maxVisits, POPULARITY_SCALE_MIN) * VISITS_SATURATION_SHARE) - floor);

  for (const tool of candidates) {
    let text = 0;
    for (const term of counted) text += term.scores[tool]!;
    text /= counted.length;
    const coverage = named.has(tool) ? counted.length : counts[tool]!;
    text = Math.max(text, named.get(tool) ?? 0);
    if (ranking.length > 0) {
      let naming = 0;
      for (const term of ranking) naming += term.scores[tool]!;
      text += (NAMING_SHARE * naming) / ranking.length;
    }
    let extra = 0;
    for (const term of optional) extra += term.scores[tool]!;
    if (optional.length > 0) text += (OPTIONAL_SHARE * extra) / optional.length;
    const { featured, visits } = tools[tool]!;
    // Coverage first (a partial answer lists tools matching more words first), then text weighed by popularity.
    const popularity = Math.min(1, Math.max(0, Math.log1p(visits) - floor) * visitsScale);
    score[tool] = coverage * 1000 + text * (1 + VISITS_FACTOR * popularity) + (featured ? FEATURED_BONUS : 0) + popularity * VISITS_BONUS;
  }
  for (const matches of cache.values()) index.release(matches);
  for (const term of [...required, ...optional]) {
    for (const tool of term.tools) term.scores[tool] = 0;
    scratch.floats.push(term.scores);
  }
  // Only the first `need` are ordered: a one-letter keyword finds thousands of tools at 10,000.
  let top = candidates;
  if (candidates.length > need * 2 && need > 0) {
    const threshold = nthLargest(candidates, score, need, order);
    top = candidates.filter((tool) => score[tool]! >= threshold);
  }
  top.sort((a, b) => score[b]! - score[a]! || tools[b]!.visits - tools[a]!.visits || a - b);
  const total = candidates.length;
  for (const tool of touched) counts[tool] = 0;
  return { order: top.slice(0, need), total, mode: complete || total === 0 ? 'all' : 'partial' };
}
