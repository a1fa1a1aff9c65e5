import { hanSyllables, hanWords, hasHan, isFunctionWord, normalizeSearchText } from './search-text';

/**
 * The search document of one tool, computed in Node at write time (pinyin needs pinyin-pro) and stored in
 * `tool_search`. Bump the version whenever what is computed here changes: the service recomputes every
 * older row when it starts.
 */
export const SEARCH_DOCUMENT_VERSION = 1;

/** What a tool's search document is made of. */
export interface SearchSource {
  name: string;
  slug: string;
  tags: string[];
  description: string;
  categoryName: string;
}

/**
 * Keys are what the GIN index looks up (every kind is exact, so any term length is index-backed):
 * - `g:` every character and every pair of adjacent characters of any field (substrings of any length
 *   are found through their pairs, then checked against `raw`);
 * - `py:` every pinyin syllable and every pair of adjacent ones (`py:jie tu`), `pp:` a syllable's first one or
 *   two letters (pinyin is then checked against `pinyin`);
 * - `in:` the initials of one to three consecutive Chinese words (`图片压缩` → `tp`, `ys`, `tpys`);
 * - `x:` the pinyin and initials, squashed, of a whole name, name part, tag or category name (`qqyinyue`, `qqyy`);
 * - `d:` each latin word of five or more letters in a name, slug or tag, and that word less any one letter
 *   (a query word and a tool word sharing one of these are one edit apart, or two letters swapped).
 * The `forms` texts serve ranking, one entry per line (`\n` before and after each): `x:` a whole name, name
 * part, slug or tag, `w:` the same from each of its words on (`截图工具` → `工具`); as written and in pinyin
 * (`forms`), in initials (`initialsForms`), and the name's alone in all three (`nameForms`).
 */
export interface SearchDocument {
  keys: string[];
  /** Every field as written (normalized), one per line: substring checks. */
  raw: string;
  /** Pinyin of every field with Chinese, syllables and latin words between single spaces, one phrase per line. */
  pinyin: string;
  forms: string;
  initialsForms: string;
  nameForms: string;
}

interface Token {
  kind: 'han' | 'word';
  text: string;
  /** Offset in the normalized value (UTF-16 units). */
  start: number;
  /** For Chinese words, one entry per character (undefined where a character has no pinyin). */
  syllables: (string | undefined)[];
}

const PIECES = /\p{Script=Han}+|(?:(?!\p{Script=Han})[\p{L}\p{N}])+|\s+|[^\p{L}\p{N}\s]+/gu;
const PUNCTUATION = /^[^\p{L}\p{N}\s]+$/u;
/** Word starts kept per value, and the longest prefix kept of each: enough for a 100-character keyword. */
const MAX_STARTS = 24;
const MAX_START_LENGTH = 100;
const MAX_INITIALS_SPAN = 3;
export const MIN_TYPO_WORD_LENGTH = 5;

/** Phrases (split at punctuation) of words: Chinese runs cut into words, latin/digit runs whole. */
function phrases(value: string): Token[][] {
  const result: Token[][] = [[]];
  for (const match of value.matchAll(PIECES)) {
    const piece = match[0];
    const start = match.index;
    if (PUNCTUATION.test(piece)) {
      result.push([]);
    } else if (hasHan(piece)) {
      const syllables = hanSyllables(piece);
      let offset = 0;
      let characterIndex = 0;
      for (const word of hanWords(piece)) {
        const length = [...word].length;
        result[result.length - 1]!.push({ kind: 'han', text: word, start: start + offset, syllables: syllables.slice(characterIndex, characterIndex + length) });
        offset += word.length;
        characterIndex += length;
      }
    } else if (!/^\s+$/u.test(piece)) {
      result[result.length - 1]!.push({ kind: 'word', text: piece, start, syllables: [] });
    }
  }
  return result.filter((phrase) => phrase.length > 0);
}

/** Pinyin squashed (`jietugongju`), latin words kept whole; a character without pinyin stays as it is. */
function squashedPinyin(tokens: Token[]): string {
  return tokens.map((token) => (token.kind === 'word' ? token.text : token.syllables.map((syllable, i) => syllable ?? [...token.text][i]).join(''))).join('');
}

function squashedInitials(tokens: Token[]): string {
  return tokens.map((token) => (token.kind === 'word' ? token.text : token.syllables.map((syllable, i) => syllable?.[0] ?? [...token.text][i]).join(''))).join('');
}

function characterGrams(value: string): string[] {
  const characters = [...value];
  const grams: string[] = [];
  characters.forEach((character, index) => {
    if (/\s/u.test(character)) return;
    grams.push(character);
    const next = characters[index + 1];
    if (next !== undefined && !/\s/u.test(next)) grams.push(character + next);
  });
  return grams;
}

/** The word itself and each way of dropping one letter. */
export function typoVariants(word: string): string[] {
  const variants = [word];
  for (let index = 0; index < word.length; index += 1) variants.push(word.slice(0, index) + word.slice(index + 1));
  return variants;
}

/** Name parts written in different scripts (`截图工具 Snipping Tool` → `截图工具`, `snipping tool`). */
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

/** One entry per line, with a line break before and after each, so that LIKE can anchor an entry's start and end. */
function lines(entries: Set<string>): string {
  return entries.size === 0 ? '' : `\n${[...entries].join('\n')}\n`;
}

export function buildSearchDocument(source: SearchSource): SearchDocument {
  const keys = new Set<string>();
  const forms = new Set<string>();
  const initialsForms = new Set<string>();
  const nameForms = new Set<string>();
  const pinyinLines: string[] = [];

  const name = normalizeSearchText(source.name);
  const slug = normalizeSearchText(source.slug);
  const tags = source.tags.map(normalizeSearchText).filter((tag) => tag !== '');
  const description = normalizeSearchText(source.description);
  const categoryName = normalizeSearchText(source.categoryName);

  const index = (value: string, field: 'n' | 's' | 't' | 'd' | 'c', options: { nameParts?: boolean } = {}) => {
    for (const gram of characterGrams(value)) keys.add(`g:${gram}`);
    const valuePhrases = phrases(value);
    const tokens = valuePhrases.flat();
    const withHan = hasHan(value);

    if (withHan) {
      for (const phrase of valuePhrases) {
        if (!phrase.some((token) => token.kind === 'han')) continue;
        const words = phrase.flatMap((token) => (token.kind === 'word' ? [token.text] : token.syllables.map((syllable) => syllable ?? '·')));
        pinyinLines.push(` ${words.join(' ')} `);
        for (const token of phrase) {
          for (const syllable of token.syllables) {
            if (!syllable) continue;
            keys.add(`py:${syllable}`);
            keys.add(`pp:${syllable.slice(0, 1)}`);
            keys.add(`pp:${syllable.slice(0, 2)}`);
          }
        }
        words.forEach((word, index) => {
          const next = words[index + 1];
          if (next !== undefined && word !== '·' && next !== '·') keys.add(`py:${word} ${next}`);
        });
        // Initials of 1 to 3 consecutive Chinese words, starting at a word (not inside one), not across 的, 和, ….
        for (let startIndex = 0; startIndex < phrase.length; startIndex += 1) {
          let initials = '';
          for (let offset = 0; offset < MAX_INITIALS_SPAN; offset += 1) {
            const next = phrase[startIndex + offset];
            if (!next || next.kind !== 'han' || isFunctionWord(next.text) || next.syllables.some((syllable) => !syllable)) break;
            initials += next.syllables.map((syllable) => syllable![0]).join('');
            if (initials.length >= 2) keys.add(`in:${initials}`);
          }
        }
      }
    }

    if (field === 'd') return;
    if (field === 'c') {
      if (withHan) {
        keys.add(`x:${squashedPinyin(tokens)}`);
        keys.add(`x:${squashedInitials(tokens)}`);
      }
      return;
    }

    const addForm = (line: string, initials: boolean) => {
      (initials ? initialsForms : forms).add(line);
      if (field === 'n') nameForms.add(line);
    };
    const wholeValues = [value, ...(options.nameParts ? nameParts(value) : [])];
    for (const whole of wholeValues) {
      addForm(`x:${whole}`, false);
      if (!hasHan(whole)) continue;
      const wholeTokens = phrases(whole).flat();
      const fullPinyin = squashedPinyin(wholeTokens);
      const initials = squashedInitials(wholeTokens);
      addForm(`x:${fullPinyin}`, false);
      addForm(`x:${initials}`, true);
      keys.add(`x:${fullPinyin}`);
      keys.add(`x:${initials}`);
    }

    tokens.slice(0, MAX_STARTS).forEach((token, tokenIndex) => {
      addForm(`w:${value.slice(token.start, token.start + MAX_START_LENGTH)}`, false);
      if (!withHan) return;
      const rest = tokens.slice(tokenIndex);
      addForm(`w:${squashedPinyin(rest).slice(0, MAX_START_LENGTH)}`, false);
      addForm(`w:${squashedInitials(rest).slice(0, MAX_START_LENGTH)}`, true);
    });

    for (const token of tokens) {
      if (token.kind === 'word' && token.text.length >= MIN_TYPO_WORD_LENGTH && /^[a-z0-9]+$/.test(token.text) && /[a-z]/.test(token.text)) {
        for (const variant of typoVariants(token.text)) keys.add(`d:${variant}`);
      }
    }
  };

  index(name, 'n', { nameParts: true });
  index(slug, 's');
  for (const tag of tags) index(tag, 't');
  index(description, 'd');
  index(categoryName, 'c');

  return {
    keys: [...keys],
    raw: [name, slug, ...tags, description, categoryName].join('\n'),
    pinyin: pinyinLines.join('\n'),
    forms: lines(forms),
    initialsForms: lines(initialsForms),
    nameForms: lines(nameForms),
  };
}
