import { normalizeSearchText } from './search-normalize';
import { hanSyllables, hanWords, hasHan } from './search-text';

/**
 * The forms under which one tool can be found, computed once per tool when the in-memory index is built
 * (search-engine-index.ts). A query part is looked up as a prefix of these forms; what kind of form it
 * starts (whole value or a word inside it; as written, pinyin, initials or fuzzy pinyin) sets its tier.
 */

export const FIELDS = ['name', 'slug', 'tag', 'category', 'description'] as const;
export type Field = (typeof FIELDS)[number];
export type Variant = 'text' | 'pinyin' | 'initials' | 'fuzzy';
/** whole: the entire value (or a name part); word: from a word start; inner: from inside a word. */
export type Position = 'whole' | 'word' | 'inner';

/**
 * A form's kind packed in 9 bits: its field, variant, position and tag place (0…3). The index keeps one
 * code per form and tool (1.2 million at 10,000 tools), so a form costs a string reference and two bytes,
 * not an object.
 */
export type FormCode = number;
const VARIANTS: readonly Variant[] = ['text', 'pinyin', 'initials', 'fuzzy'];
const POSITIONS: readonly Position[] = ['whole', 'word', 'inner'];
export const FORM_CODES = 1 << 9;

export function formCode(field: Field, variant: Variant, position: Position, rank: number): FormCode {
  return FIELDS.indexOf(field) | (VARIANTS.indexOf(variant) << 3) | (POSITIONS.indexOf(position) << 5) | (rank << 7);
}

export function decodeForm(code: FormCode): { field: Field; variant: Variant; position: Position; rank: number } {
  return { field: FIELDS[code & 7]!, variant: VARIANTS[(code >> 3) & 3]!, position: POSITIONS[(code >> 5) & 3]!, rank: code >> 7 };
}

export interface ToolSource {
  name: string;
  slug: string;
  tags: string[];
  description: string;
  categoryName: string;
}

export const MIN_TYPO_LENGTH = 5;
/** Longest form kept from a word start inside a description: longer query parts are rare and matched in names and tags. */
const DESCRIPTION_FORM_LENGTH = 16;
const FORM_LENGTH = 64;
const DESCRIPTION_INNER_LENGTH = 8;

/** Southern accents and quick typing mix these: folded the same on both sides, matched a tier below exact pinyin. */
export function foldSyllable(syllable: string): string {
  return syllable
    .replace(/^([zcs])h/, '$1')
    .replace(/^l/, 'n')
    .replace(/(a|e|i)ng$/, '$1n');
}

const LATIN = '(?:(?!\\p{Script=Han})[\\p{L}\\p{N}])+';
const PIECES = new RegExp(`\\p{Script=Han}+|${LATIN}(?:[-.+#&]${LATIN})*`, 'gu');

interface Word {
  text: string;
  start: number;
  /** Syllables of a Chinese word (one per character, undefined where there is none); empty for latin words. */
  syllables: (string | undefined)[];
}

/** Words of a normalized value: Chinese runs cut into words, latin/digit runs whole (`7-zip`, `node.js` stay one word). */
export function valueWords(value: string): Word[] {
  const words: Word[] = [];
  for (const match of value.matchAll(PIECES)) {
    const piece = match[0];
    if (!hasHan(piece)) {
      words.push({ text: piece, start: match.index, syllables: [] });
      continue;
    }
    const syllables = hanSyllables(piece);
    let offset = 0;
    let character = 0;
    for (const word of hanWords(piece)) {
      const length = [...word].length;
      words.push({ text: word, start: match.index + offset, syllables: syllables.slice(character, character + length) });
      offset += word.length;
      character += length;
    }
  }
  return words;
}

export const squash = (text: string) => text.replace(/[^\p{L}\p{N}]+/gu, '');

/** Name parts in different scripts: `截图工具 snipping tool` → `截图工具`, `snipping tool`. */
function nameParts(name: string): string[] {
  const parts: { text: string; han: boolean }[] = [];
  for (const word of name.split(' ')) {
    const han = hasHan(word);
    const last = parts[parts.length - 1];
    if (last && last.han === han) last.text += ` ${word}`;
    else parts.push({ text: word, han });
  }
  return parts.length > 1 ? parts.map((part) => part.text) : [];
}

/** Pinyin syllables of the words (latin words as they are), and the index of the first syllable of each word. */
function syllableRun(words: Word[]): { syllables: string[]; initials: string[]; wordStarts: number[] } | undefined {
  const syllables: string[] = [];
  const initials: string[] = [];
  const wordStarts: number[] = [];
  for (const word of words) {
    wordStarts.push(syllables.length);
    if (word.syllables.length === 0) {
      syllables.push(word.text);
      initials.push(word.text);
    } else if (word.syllables.every((syllable) => syllable)) {
      syllables.push(...(word.syllables as string[]));
      initials.push(...(word.syllables as string[]).map((syllable) => syllable[0]!));
    } else return undefined;
  }
  return { syllables, initials, wordStarts };
}

/**
 * The forms of one tool: `texts[i]` of kind `codes[i]`; and the words its typos are looked up by (latin
 * words and squashed pinyin of five letters or more), `typoWords[i]` in the field and tag place of
 * `typoCodes[i]` (a form code with variant 0 and the word's position: the whole value or a word in it). Compact: 10,000 tools' forms are gathered for a full build.
 */
export interface ToolForms {
  texts: string[];
  codes: Uint16Array;
  typoWords: string[];
  typoCodes: Uint16Array;
}

/** Forms of one value, by field, tag place and text: tags and category names repeat across a catalog. */
const valueMemo = new Map<string, ToolForms>();
const VALUE_MEMO_LIMIT = 50_000;

function valueForms(raw: string, field: Field, rank: number): ToolForms {
  const key = `${field}\u0000${rank}\u0000${raw}`;
  const memo = valueMemo.get(key);
  if (memo) return memo;
  const computed = computeValueForms(raw, field, rank);
  if (field === 'tag' || field === 'category') {
    if (valueMemo.size >= VALUE_MEMO_LIMIT) valueMemo.clear();
    valueMemo.set(key, computed);
  }
  return computed;
}

function computeValueForms(raw: string, field: Field, rank: number): ToolForms {
  const texts: string[] = [];
  const codes: FormCode[] = [];
  const typoWords: string[] = [];
  const typoCodes: FormCode[] = [];
  // Duplicates are harmless (a lookup keeps the best score per field), so they are not checked for.
  const add = (text: string, variant: Variant, position: Position) => {
    if (text === '') return;
    texts.push(text);
    codes.push(formCode(field, variant, position, rank));
  };
  // A typo of a whole value (a name, a tag) is a better match than a typo of one word inside a name (`evrnote`:
  // the tool tagged Evernote before the tools named "Rara Evernote").
  const addTypo = (word: string, position: Position) => {
    if (word.length >= MIN_TYPO_LENGTH && /^[a-z0-9]+$/.test(word) && /[a-z]/.test(word)) {
      typoWords.push(word);
      typoCodes.push(formCode(field, 'text', position, rank));
    }
  };
  const done = (): ToolForms => ({ texts, codes: Uint16Array.from(codes), typoWords, typoCodes: Uint16Array.from(typoCodes) });
  const value = normalizeSearchText(raw);
  if (value === '') return done();
  const limit = field === 'description' ? DESCRIPTION_FORM_LENGTH : FORM_LENGTH;
  const words = valueWords(value);
  if (field !== 'description') {
    for (const whole of [value, ...(field === 'name' ? nameParts(value) : [])]) {
      add(whole, 'text', 'whole');
      const squashed = squash(whole);
      if (squashed !== whole) add(squashed, 'text', 'whole');
      addTypo(squashed, 'whole');
    }
  }
  for (const word of words) {
    add(value.slice(word.start, word.start + limit), 'text', 'word');
    if (field !== 'description') addTypo(word.text, word.text === value ? 'whole' : 'word');
    // Inside a word: every later character of a Chinese word (截图 in 长截图), of a latin name (pdf in smallpdf).
    if (field === 'description' && word.syllables.length === 0) continue;
    const innerLimit = field === 'description' ? DESCRIPTION_INNER_LENGTH : limit;
    for (let offset = 1; offset < word.text.length; offset += 1) add(value.slice(word.start + offset, word.start + offset + innerLimit), 'text', 'inner');
  }
  if (!hasHan(value)) return done();
  if (field === 'description') {
    // Descriptions in pinyin from each Chinese word on (协作 as xiezuo), no initials: too many false friends.
    const pinyinWords = words.filter((word) => word.syllables.length > 0 && word.syllables.every(Boolean));
    pinyinWords.forEach((word, index) => {
      const rest = pinyinWords.slice(index, index + 3).flatMap((next) => next.syllables as string[]);
      add(rest.join('').slice(0, limit), 'pinyin', 'word');
      add(rest.map(foldSyllable).join('').slice(0, limit), 'fuzzy', 'word');
    });
    return done();
  }
  const run = syllableRun(words);
  if (!run) return done();
  const { syllables, initials, wordStarts } = run;
  const folded = syllables.map(foldSyllable);
  for (let i = 0; i < syllables.length; i += 1) {
    const position: Position = i === 0 ? 'whole' : wordStarts.includes(i) ? 'word' : 'inner';
    const pinyin = syllables.slice(i).join('').slice(0, limit);
    add(pinyin, 'pinyin', position);
    add(initials.slice(i).join('').slice(0, limit), 'initials', position);
    add(folded.slice(i).join('').slice(0, limit), 'fuzzy', position);
    if (position !== 'inner') addTypo(pinyin, position);
  }
  return done();
}

export function buildToolForms(source: ToolSource): ToolForms {
  const parts = [
    valueForms(source.name, 'name', 0),
    valueForms(source.slug, 'slug', 0),
    ...source.tags.map((tag, position) => valueForms(tag, 'tag', Math.min(position, 3))),
    valueForms(source.categoryName, 'category', 0),
    valueForms(source.description, 'description', 0),
  ];
  const concat = (arrays: Uint16Array[]) => {
    const joined = new Uint16Array(arrays.reduce((sum, array) => sum + array.length, 0));
    let offset = 0;
    for (const array of arrays) {
      joined.set(array, offset);
      offset += array.length;
    }
    return joined;
  };
  return {
    texts: parts.flatMap((part) => part.texts),
    codes: concat(parts.map((part) => part.codes)),
    typoWords: parts.flatMap((part) => part.typoWords),
    typoCodes: concat(parts.map((part) => part.typoCodes)),
  };
}
