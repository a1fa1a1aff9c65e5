import { buildToolForms, decodeForm, FORM_CODES, foldSyllable, MIN_TYPO_LENGTH, type Field, type FormCode, type ToolForms } from './search-forms';
import { pinyinReadings } from './search-text';

/**
 * The in-memory index of one catalog revision: every form of every tool in sorted arrays, so that a query
 * part finds its matches by binary search (prefix range) whatever its length, one letter included, and
 * a map of one-letter deletions for typos. Built per replica from the database (search-engine.ts).
 */

/**
 * What one query part matches: the tools (positions in the index, each once) and, for each, its best score
 * in each field at `scores[tool * FIELD_SLOTS + field]` (0 = no match). Dense arrays, not maps: a one-letter
 * part matches thousands of tools at 10,000.
 */
export interface PartMatches {
  tools: number[];
  scores: Float32Array;
}
export const FIELD_SLOTS = 4;
// The hot loops of a one-letter lookup write the four slots by hand.
if (FIELD_SLOTS !== 4) throw new Error('FIELD_SLOTS is 4');

/** The slug is the name's address form: one field for ranking, or a tool would count its name twice. */
const FIELD_INDEX: Record<Field, number> = { name: 0, slug: 0, tag: 1, category: 2, description: 3 };

/**
 * The tiers: exact name/slug, then prefix, word start, pinyin, initials, fuzzy pinyin, typo, description.
 * [exact, prefix] per field for each kind of form; a tag loses 1.5 per place after the first (its main tags first).
 */
const TIERS: Record<string, Record<Field, [number, number]>> = {
  'text/whole': { name: [100, 86], slug: [100, 84], tag: [92, 80], category: [62, 55], description: [32, 32] },
  'text/word': { name: [78, 76], slug: [74, 74], tag: [74, 72], category: [52, 50], description: [32, 32] },
  'text/inner': { name: [60, 60], slug: [58, 58], tag: [58, 56], category: [42, 42], description: [28, 28] },
  'pinyin/whole': { name: [70, 62], slug: [70, 62], tag: [68, 60], category: [46, 42], description: [0, 0] },
  'pinyin/word': { name: [62, 60], slug: [62, 60], tag: [60, 58], category: [42, 40], description: [26, 26] },
  'pinyin/inner': { name: [50, 48], slug: [50, 48], tag: [48, 46], category: [36, 34], description: [0, 0] },
  'initials/whole': { name: [60, 52], slug: [60, 52], tag: [58, 50], category: [40, 36], description: [0, 0] },
  'initials/word': { name: [52, 50], slug: [52, 50], tag: [50, 48], category: [36, 34], description: [0, 0] },
  'initials/inner': { name: [40, 38], slug: [40, 38], tag: [38, 36], category: [30, 28], description: [0, 0] },
  'fuzzy/whole': { name: [46, 42], slug: [46, 42], tag: [44, 40], category: [34, 32], description: [0, 0] },
  'fuzzy/word': { name: [42, 40], slug: [42, 40], tag: [40, 38], category: [32, 30], description: [22, 22] },
  'fuzzy/inner': { name: [34, 32], slug: [34, 32], tag: [32, 30], category: [28, 26], description: [0, 0] },
};
const TYPO_SCORE: Record<Field, number> = { name: 40, slug: 40, tag: 38, category: 30, description: 0 };
/** A typo of one word of a value (a name's second word) scores this much less than a typo of the whole value. */
const TYPO_WORD_STEP = 8;
const TAG_RANK_STEP = 1.5;
/** Buffers kept for reuse: more than the lookups of one query with aliases. */
const POOL_SIZE = 64;

/** Each form code's score when a part is the whole form (exact) or its start (prefix), and its ranking field. */
const EXACT = new Float32Array(FORM_CODES);
const PREFIX = new Float32Array(FORM_CODES);
const FIELD_OF_CODE = new Uint8Array(FORM_CODES);
const TYPO = new Float32Array(FORM_CODES);
for (let code = 0; code < FORM_CODES; code += 1) {
  const { field, variant, position, rank } = decodeForm(code);
  const tiers = TIERS[`${variant}/${position}`]?.[field];
  if (!tiers) continue;
  const penalty = field === 'tag' ? rank * TAG_RANK_STEP : 0;
  EXACT[code] = tiers[0] - penalty;
  PREFIX[code] = tiers[1] - penalty;
  FIELD_OF_CODE[code] = FIELD_INDEX[field];
  TYPO[code] = TYPO_SCORE[field] - penalty - (position === 'word' ? TYPO_WORD_STEP : 0);
}

/** Forms of every tool, sorted by text: a part's matches are one range. */
interface SortedForms {
  texts: string[];
  tools: Int32Array;
  codes: Uint16Array;
}

/** Forms gathered for sorting, in parallel arrays (1.2 million at 10,000 tools: no object per form). */
class FormList {
  texts: string[] = [];
  tools: number[] = [];
  codes: number[] = [];
  push(text: string, tool: number, code: number) {
    this.texts.push(text);
    this.tools.push(tool);
    this.codes.push(code);
  }
}

/**
 * The build is a generator that yields between chunks of work of a few milliseconds each: the search engine
 * lets the event loop go at each yield (a whole build at 10,000 tools is seconds of work, which must not
 * stall pages and the API), and `buildSearchIndex` runs it straight through.
 */
type Steps<T> = Generator<void, T, void>;
/** Forms handled between two yields. */
const CHUNK = 8192;

/**
 * Sorted by text (ties by the order gathered, so the result is that of one stable sort): runs of CHUNK
 * sorted one at a time, then merged pairwise, a yield every CHUNK forms merged.
 */
function* sortForms(list: FormList): Steps<SortedForms> {
  const { texts } = list;
  const compare = (a: number, b: number) => (texts[a]! < texts[b]! ? -1 : texts[a]! > texts[b]! ? 1 : a - b);
  let order = Uint32Array.from(texts.keys());
  for (let from = 0; from < order.length; from += CHUNK) {
    order.subarray(from, from + CHUNK).sort(compare);
    yield;
  }
  let spare = new Uint32Array(order.length);
  for (let width = CHUNK; width < order.length; width *= 2) {
    let step = 0;
    for (let left = 0; left < order.length; left += 2 * width) {
      const middle = Math.min(left + width, order.length);
      const end = Math.min(left + 2 * width, order.length);
      let i = left;
      let j = middle;
      for (let k = left; k < end; k += 1) {
        spare[k] = i < middle && (j >= end || compare(order[i]!, order[j]!) <= 0) ? order[i++]! : order[j++]!;
        if (++step % CHUNK === 0) yield;
      }
    }
    [order, spare] = [spare, order];
  }
  const sorted: SortedForms = { texts: new Array<string>(order.length), tools: new Int32Array(order.length), codes: new Uint16Array(order.length) };
  for (let i = 0; i < order.length; i += 1) {
    const from = order[i]!;
    sorted.texts[i] = texts[from]!;
    sorted.tools[i] = list.tools[from]!;
    sorted.codes[i] = list.codes[from]!;
    if ((i + 1) % CHUNK === 0) yield;
  }
  return sorted;
}

function record(found: PartMatches, tool: number, field: number, score: number) {
  const slot = tool * FIELD_SLOTS;
  if (found.scores[slot] === 0 && found.scores[slot + 1] === 0 && found.scores[slot + 2] === 0 && found.scores[slot + 3] === 0) found.tools.push(tool);
  if (score > found.scores[slot + field]!) found.scores[slot + field] = score;
}

/** Records the matches of `part` in the forms from `from` on (the start of its range). */
function scanRange(sorted: SortedForms, from: number, part: string, found: PartMatches) {
  const { texts, tools, codes } = sorted;
  for (let i = from; i < texts.length && texts[i]!.startsWith(part); i += 1) {
    const code = codes[i]!;
    record(found, tools[i]!, FIELD_OF_CODE[code]!, texts[i]!.length === part.length ? EXACT[code]! : PREFIX[code]!);
  }
}

function lowerBound(texts: string[], value: string): number {
  let low = 0;
  let high = texts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (texts[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Damerau–Levenshtein distance at most one (one letter wrong, missing, extra, or two swapped). */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

function deletions(word: string): string[] {
  const variants = [word];
  for (let i = 0; i < word.length; i += 1) variants.push(word.slice(0, i) + word.slice(i + 1));
  return variants;
}

export interface SearchIndex {
  size: number;
  /** Every tool matching the part, with its best score in each field. Give it back with `release` when done. */
  lookup(part: string): PartMatches;
  /** Returns a lookup's buffer for reuse: a query allocates no large arrays, so the heap stays quiet (no GC pauses). */
  release(matches: PartMatches): void;
}

interface IndexParts {
  sortedStarts: SortedForms;
  sortedInners: SortedForms;
  sortedFuzzy: SortedForms;
  typoTools: Map<string, TypoEntry[]>;
  typoWordsByDeletion: Map<string, string[]>;
}

/** A tool having a typo word: where (ranking field) and its score when the word is typed one letter off. */
interface TypoEntry {
  tool: number;
  field: number;
  score: number;
}

/** Where a form is sorted: fuzzy pinyin apart, forms from inside words apart, the rest (whole values and word starts). */
function listFor<T>(code: FormCode, starts: T, inners: T, fuzzy: T): T {
  const { variant, position } = decodeForm(code);
  return variant === 'fuzzy' ? fuzzy : position === 'inner' ? inners : starts;
}

/**
 * The index's arrays and maps, built in a function of their own: the lists of every form it sorts (1.2
 * million objects at 10,000 tools) would otherwise sit in the scope the lookup closures keep alive.
 */
function* indexParts(toolForms: ToolForms[]): Steps<IndexParts> {
  const starts = new FormList();
  const inners = new FormList();
  const fuzzy = new FormList();
  // Typos: every distinct word once, with the tools that have it; its one-letter deletions point to the word.
  const typoTools = new Map<string, TypoEntry[]>();
  for (let tool = 0; tool < toolForms.length; tool += 1) {
    const { texts, codes, typoWords, typoCodes } = toolForms[tool]!;
    texts.forEach((text, i) => listFor(codes[i]!, starts, inners, fuzzy).push(text, tool, codes[i]!));
    typoWords.forEach((word, i) => {
      const entry = { tool, field: FIELD_OF_CODE[typoCodes[i]!]!, score: TYPO[typoCodes[i]!]! };
      const list = typoTools.get(word);
      if (list) list.push(entry);
      else typoTools.set(word, [entry]);
    });
    if ((tool + 1) % 50 === 0) yield;
  }
  const typoWordsByDeletion = new Map<string, string[]>();
  let words = 0;
  for (const word of typoTools.keys()) {
    for (const variant of deletions(word)) {
      const list = typoWordsByDeletion.get(variant);
      if (list) list.push(word);
      else typoWordsByDeletion.set(variant, [word]);
    }
    if (++words % 1000 === 0) yield;
  }
  const sortedStarts = yield* sortForms(starts);
  const sortedInners = yield* sortForms(inners);
  const sortedFuzzy = yield* sortForms(fuzzy);
  return { sortedStarts, sortedInners, sortedFuzzy, typoTools, typoWordsByDeletion };
}

/** A character that starts at least this many forms gets its matches precomputed (letters do: `s` starts 80,000 at 10,000 tools). */
const SINGLE_TABLE_MIN_FORMS = 4096;

/** One character's matches, precomputed: tools, and per tool its score in each field, doubled (scores are whole or half points ≤ 100). */
interface SingleMatches {
  tools: Int32Array;
  scores: Uint8Array;
}

/**
 * The matches of every character that starts many forms, computed once per build: a one-letter query is
 * what search as you type sends first, and scanning every form it starts is most of its time (a part
 * of one character is only matched from word starts, so the table is its whole answer).
 */
function* singleCharacterMatches(
  sorted: SortedForms,
  size: number,
  minForms: number,
): Steps<Map<string, SingleMatches>> {
  const singles = new Map<string, SingleMatches>();
  const { texts } = sorted;
  for (let from = 0; from < texts.length; ) {
    const character = texts[from]![0]!;
    let to = from;
    while (to < texts.length && texts[to]![0] === character) to += 1;
    if (to - from >= minForms) {
      singles.set(character, singleTable(sorted, size, character));
      yield;
    }
    from = to;
  }
  return singles;
}

function singleTable(sorted: SortedForms, size: number, character: string): SingleMatches {
  const found: PartMatches = { tools: [], scores: new Float32Array(size * FIELD_SLOTS) };
  scanRange(sorted, lowerBound(sorted.texts, character), character, found);
  const scores = new Uint8Array(found.tools.length * FIELD_SLOTS);
  found.tools.forEach((tool, i) => {
    for (let field = 0; field < FIELD_SLOTS; field += 1) scores[i * FIELD_SLOTS + field] = Math.round(found.scores[tool * FIELD_SLOTS + field]! * 2);
  });
  return { tools: Int32Array.from(found.tools), scores };
}

export interface BuildOptions {
  /** See SINGLE_TABLE_MIN_FORMS (a test sets it to compare the table with a scan). */
  singleTableMinForms?: number;
}

/** The index, built in one go (tests, benches). */
export function buildSearchIndex(toolForms: ToolForms[], options: BuildOptions = {}): SearchIndex {
  const steps = indexSteps(toolForms, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** The index, built in chunks with `pause()` awaited between them (the service: see Steps). */
export async function buildSearchIndexInChunks(toolForms: ToolForms[], pause: () => Promise<void>, options: BuildOptions = {}): Promise<SearchIndex> {
  const steps = indexSteps(toolForms, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await pause();
  }
}

function* indexSteps(toolForms: ToolForms[], { singleTableMinForms = SINGLE_TABLE_MIN_FORMS }: BuildOptions): Steps<SearchIndex> {
  const parts = yield* indexParts(toolForms);
  const size = toolForms.length;
  const singles = yield* singleCharacterMatches(parts.sortedStarts, size, singleTableMinForms);
  return indexOf({ ...parts, singles, size, singleTableMinForms });
}

/** Everything an index answers from: kept with it (`PARTS`) so that an edit of a few tools updates it (`updateSearchIndex`). */
interface IndexState extends IndexParts {
  singles: Map<string, SingleMatches>;
  size: number;
  singleTableMinForms: number;
}

const PARTS = new WeakMap<SearchIndex, IndexState>();

function indexOf(state: IndexState): SearchIndex {
  const { sortedStarts, sortedInners, sortedFuzzy, typoTools, typoWordsByDeletion, singles, size } = state;
  const pool: Float32Array[] = [];
  const scan = (sorted: SortedForms, part: string, found: PartMatches) => scanRange(sorted, lowerBound(sorted.texts, part), part, found);

  const index: SearchIndex = {
    size,
    release(matches) {
      const { scores } = matches;
      for (const tool of matches.tools) {
        const slot = tool * 4;
        scores[slot] = 0;
        scores[slot + 1] = 0;
        scores[slot + 2] = 0;
        scores[slot + 3] = 0;
      }
      if (pool.length < POOL_SIZE) pool.push(matches.scores);
    },
    lookup(part) {
      const found: PartMatches = { tools: [], scores: pool.pop() ?? new Float32Array(size * FIELD_SLOTS) };
      const single = part.length === 1 ? singles.get(part) : undefined;
      if (single) {
        // What search as you type sends first: copied from the table instead of scanning ~80,000 forms.
        // A plain loop (9,000 tools for a letter at 10,000): no callback per tool.
        const { tools, scores } = single;
        const into = found.scores;
        found.tools = Array.from(tools);
        for (let i = 0; i < tools.length; i += 1) {
          const slot = tools[i]! * 4;
          const from = i * 4;
          into[slot] = scores[from]! / 2;
          into[slot + 1] = scores[from + 1]! / 2;
          into[slot + 2] = scores[from + 2]! / 2;
          into[slot + 3] = scores[from + 3]! / 2;
        }
        return found;
      }
      scan(sortedStarts, part, found);
      // Inside words: two Chinese characters (截图 in 长截图) or three letters (pdf in smallpdf); two letters
      // inside latin words are noise (ps in upscayl, deepseek).
      if ([...part].length >= (/^[a-z0-9]+$/.test(part) ? 3 : 2)) scan(sortedInners, part, found);
      const latin = /^[a-z]+$/.test(part);
      if (latin && part.length >= 3) {
        // Fuzzy pinyin: the part read as syllables, each folded (zh→z, l→n, -ng→-n), against folded tool pinyin.
        const folded = new Set(pinyinReadings(part, 4).map((reading) => [...reading.syllables.map(foldSyllable), reading.partial ?? ''].join('')));
        for (const text of folded) scan(sortedFuzzy, text, found);
      }
      if (/^[a-z0-9]+$/.test(part) && /[a-z]/.test(part) && part.length >= MIN_TYPO_LENGTH) {
        const words = new Set(deletions(part).flatMap((variant) => typoWordsByDeletion.get(variant) ?? []));
        for (const word of words) {
          if (!withinOneEdit(part, word)) continue;
          // A word of tools since edited away stays in the deletions (see updateParts): it finds no tools.
          for (const entry of typoTools.get(word) ?? []) record(found, entry.tool, entry.field, entry.score);
        }
      }
      return found;
    },
  };
  PARTS.set(index, state);
  return index;
}

export { buildToolForms };

/**
 * An edit of a few tools, as the index of the next revision sees it: `remap[old position]` is the tool's
 * position in the new catalog, or -1 when it was deleted or changed; `added` are the new and changed tools'
 * forms at their new positions. Every other tool keeps its forms (its name, slug, tags, category and
 * description are unchanged), so only its position may move.
 */
export interface IndexEdit {
  size: number;
  remap: Int32Array;
  added: { position: number; forms: ToolForms }[];
}

/** The kept forms moved to their new positions and the added ones merged in, by text: a new array, the previous index keeps answering from its own. */
function mergeForms(previous: SortedForms, remap: Int32Array, added: FormList): SortedForms {
  const order = Uint32Array.from(added.texts.keys()).sort((a, b) => (added.texts[a]! < added.texts[b]! ? -1 : added.texts[a]! > added.texts[b]! ? 1 : a - b));
  let kept = 0;
  for (let i = 0; i < previous.tools.length; i += 1) if (remap[previous.tools[i]!]! >= 0) kept += 1;
  const length = kept + order.length;
  const merged: SortedForms = { texts: new Array<string>(length), tools: new Int32Array(length), codes: new Uint16Array(length) };
  let out = 0;
  let from = 0;
  const copyUntil = (end: number) => {
    for (; from < end; from += 1) {
      const tool = remap[previous.tools[from]!]!;
      if (tool < 0) continue;
      merged.texts[out] = previous.texts[from]!;
      merged.tools[out] = tool;
      merged.codes[out] = previous.codes[from]!;
      out += 1;
    }
  };
  for (const i of order) {
    const text = added.texts[i]!;
    // Before the first previous form not smaller (ties in any order: a lookup keeps each tool's best score per field).
    let low = from;
    let high = previous.texts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (previous.texts[middle]! < text) low = middle + 1;
      else high = middle;
    }
    copyUntil(low);
    merged.texts[out] = text;
    merged.tools[out] = added.tools[i]!;
    merged.codes[out] = added.codes[i]!;
    out += 1;
  }
  copyUntil(previous.texts.length);
  return merged;
}

function rangeSize(sorted: SortedForms, character: string): number {
  return lowerBound(sorted.texts, String.fromCharCode(character.charCodeAt(0) + 1)) - lowerBound(sorted.texts, character);
}

/**
 * The index after an edit of a few tools, with the answers of an index built afresh from the new catalog
 * (the search-index test compares them): the edited tools' forms leave the sorted arrays, the typo table
 * and the one-character tables, their new forms go in, and every other tool moves to its new position.
 * Work in proportion to the catalog's forms copied (tens of milliseconds at 10,000 tools), not to their
 * pinyin or their sort (seconds).
 */
export function updateSearchIndex(previous: SearchIndex, edit: IndexEdit): SearchIndex {
  const steps = updateSteps(previous, edit);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

export async function updateSearchIndexInChunks(previous: SearchIndex, edit: IndexEdit, pause: () => Promise<void>): Promise<SearchIndex> {
  const steps = updateSteps(previous, edit);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await pause();
  }
}

function* updateSteps(previous: SearchIndex, { size, remap, added }: IndexEdit): Steps<SearchIndex> {
  const state = PARTS.get(previous);
  if (!state) throw new Error('not an index built here');
  const starts = new FormList();
  const inners = new FormList();
  const fuzzy = new FormList();
  for (const { position, forms } of added) {
    forms.texts.forEach((text, i) => listFor(forms.codes[i]!, starts, inners, fuzzy).push(text, position, forms.codes[i]!));
  }
  const sortedStarts = mergeForms(state.sortedStarts, remap, starts);
  yield;
  const sortedInners = mergeForms(state.sortedInners, remap, inners);
  yield;
  const sortedFuzzy = mergeForms(state.sortedFuzzy, remap, fuzzy);
  yield;

  // Typos: entries moved or dropped (an array is shared when none of its tools moved); the added tools' words in.
  const typoTools = new Map<string, TypoEntry[]>();
  for (const [word, entries] of state.typoTools) {
    let list = entries;
    if (entries.some((entry) => remap[entry.tool] !== entry.tool)) {
      list = [];
      for (const entry of entries) {
        const tool = remap[entry.tool]!;
        if (tool >= 0) list.push(tool === entry.tool ? entry : { ...entry, tool });
      }
    }
    if (list.length > 0) typoTools.set(word, list);
  }
  // The deletions table only grows: a word no tool has any more finds no entries (lookup), and the previous index,
  // answering meanwhile, finds none for a word it has not. A full build starts it afresh.
  const { typoWordsByDeletion } = state;
  for (const { position, forms } of added) {
    forms.typoWords.forEach((word, i) => {
      const entry = { tool: position, field: FIELD_OF_CODE[forms.typoCodes[i]!]!, score: TYPO[forms.typoCodes[i]!]! };
      const list = typoTools.get(word);
      if (list) typoTools.set(word, [...list, entry]);
      else typoTools.set(word, [entry]);
      if (!typoWordsByDeletion.get(word)?.includes(word)) {
        for (const variant of deletions(word)) {
          const words = typoWordsByDeletion.get(variant);
          if (words) words.push(word);
          else typoWordsByDeletion.set(variant, [word]);
        }
      }
    });
  }
  yield;

  // One-character tables: a tool's row depends on its own forms only, so kept rows move and the added tools' rows are computed.
  const singles = new Map<string, SingleMatches>();
  const addedRows = new Map<string, { tools: number[]; scores: number[] }>();
  for (const { position, forms } of added) {
    const mine = new Map<string, Float32Array>();
    forms.texts.forEach((text, i) => {
      const code = forms.codes[i]!;
      if (listFor(code, starts, inners, fuzzy) !== starts) return;
      const character = text[0]!;
      if (!state.singles.has(character)) return;
      let scores = mine.get(character);
      if (!scores) mine.set(character, (scores = new Float32Array(FIELD_SLOTS)));
      const score = text.length === 1 ? EXACT[code]! : PREFIX[code]!;
      const field = FIELD_OF_CODE[code]!;
      if (score > scores[field]!) scores[field] = score;
    });
    for (const [character, scores] of mine) {
      let rows = addedRows.get(character);
      if (!rows) addedRows.set(character, (rows = { tools: [], scores: [] }));
      rows.tools.push(position);
      for (const score of scores) rows.scores.push(Math.round(score * 2));
    }
  }
  for (const [character, table] of state.singles) {
    if (rangeSize(sortedStarts, character) < state.singleTableMinForms) continue;
    const rows = addedRows.get(character) ?? { tools: [], scores: [] };
    let kept = 0;
    for (const tool of table.tools) if (remap[tool]! >= 0) kept += 1;
    const tools = new Int32Array(kept + rows.tools.length);
    const scores = new Uint8Array(tools.length * FIELD_SLOTS);
    let out = 0;
    table.tools.forEach((tool, i) => {
      const moved = remap[tool]!;
      if (moved < 0) return;
      tools[out] = moved;
      scores.set(table.scores.subarray(i * FIELD_SLOTS, i * FIELD_SLOTS + FIELD_SLOTS), out * FIELD_SLOTS);
      out += 1;
    });
    tools.set(rows.tools, out);
    scores.set(rows.scores, out * FIELD_SLOTS);
    singles.set(character, { tools, scores });
  }
  // A character that now starts enough forms gets its table (a scan of its range, as a full build does).
  const grown = new Set<string>();
  for (const text of starts.texts) if (!state.singles.has(text[0]!)) grown.add(text[0]!);
  for (const character of grown) {
    if (rangeSize(sortedStarts, character) >= state.singleTableMinForms) singles.set(character, singleTable(sortedStarts, size, character));
  }
  return indexOf({ ...state, sortedStarts, sortedInners, sortedFuzzy, typoTools, typoWordsByDeletion, singles, size });
}
