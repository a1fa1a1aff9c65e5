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

export interface Form {
  text: string;
  field: Field;
  variant: Variant;
  position: Position;
  /** Position of the tag among the tool's tags (editors list the main ones first); 0 for other fields. */
  rank: number;
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

export interface ToolForms {
  forms: Form[];
  /** Latin words and squashed pinyin of five letters or more, with their field: the typo lookup. */
  typoWords: { word: string; field: Field; rank: number }[];
}

export function buildToolForms(source: ToolSource): ToolForms {
  const forms: Form[] = [];
  const typoWords: ToolForms['typoWords'] = [];
  const seen = new Set<string>();
  const add = (text: string, field: Field, variant: Variant, position: Position, rank: number) => {
    const key = `${text}\u0000${field}\u0000${variant}\u0000${position}`;
    if (text === '' || seen.has(key)) return;
    seen.add(key);
    forms.push({ text, field, variant, position, rank });
  };
  const addTypo = (word: string, field: Field, rank: number) => {
    if (word.length >= MIN_TYPO_LENGTH && /^[a-z0-9]+$/.test(word) && /[a-z]/.test(word)) typoWords.push({ word, field, rank });
  };

  const index = (raw: string, field: Field, rank = 0) => {
    const value = normalizeSearchText(raw);
    if (value === '') return;
    const limit = field === 'description' ? DESCRIPTION_FORM_LENGTH : FORM_LENGTH;
    const words = valueWords(value);
    if (field !== 'description') {
      for (const whole of [value, ...(field === 'name' ? nameParts(value) : [])]) {
        add(whole, field, 'text', 'whole', rank);
        add(squash(whole), field, 'text', 'whole', rank);
        addTypo(squash(whole), field, rank);
      }
    }
    for (const word of words) {
      add(value.slice(word.start, word.start + limit), field, 'text', 'word', rank);
      if (field !== 'description') addTypo(word.text, field, rank);
      // Inside a word: every later character of a Chinese word (截图 in 长截图) or of a latin name (pdf in smallpdf).
      if (word.syllables.length > 0 || field !== 'description') {
        for (let offset = 1; offset < word.text.length; offset += 1) {
          add(value.slice(word.start + offset, word.start + offset + limit), field, 'text', 'inner', rank);
        }
      }
    }
    if (!hasHan(value)) return;
    if (field === 'description') {
      // Descriptions in pinyin from each Chinese word on (协作 as xiezuo), no initials: too many false friends.
      for (const word of words) {
        if (word.syllables.length === 0 || word.syllables.some((syllable) => !syllable)) continue;
        const rest = words.slice(words.indexOf(word), words.indexOf(word) + 4).filter((next) => next.syllables.length > 0 && next.syllables.every(Boolean));
        add(rest.flatMap((next) => next.syllables).join('').slice(0, limit), field, 'pinyin', 'word', rank);
        add(rest.flatMap((next) => next.syllables.map((syllable) => foldSyllable(syllable!))).join('').slice(0, limit), field, 'fuzzy', 'word', rank);
      }
      return;
    }

    const run = syllableRun(words);
    if (!run) return;
    const { syllables, initials, wordStarts } = run;
    const folded = syllables.map(foldSyllable);
    for (let i = 0; i < syllables.length; i += 1) {
      const position: Position = i === 0 ? 'whole' : wordStarts.includes(i) ? 'word' : 'inner';
      add(syllables.slice(i).join('').slice(0, limit), field, 'pinyin', position, rank);
      add(initials.slice(i).join('').slice(0, limit), field, 'initials', position, rank);
      add(folded.slice(i).join('').slice(0, limit), field, 'fuzzy', position, rank);
      if (position !== 'inner') addTypo(syllables.slice(i).join(''), field, rank);
    }
  };

  index(source.name, 'name');
  index(source.slug, 'slug');
  source.tags.forEach((tag, position) => index(tag, 'tag', Math.min(position, 3)));
  index(source.categoryName, 'category');
  index(source.description, 'description');
  return { forms, typoWords };
}
