import { Converter } from 'opencc-js';

/**
 * One normal form for every query and every indexed field, so that what a visitor types and what an editor
 * wrote meet: traditional characters as simplified, full-width as half-width, lower case, no tone marks or
 * tone numbers, apostrophes (an input method's syllable breaks) as spaces, invisible characters gone.
 */

// Character by character ('t'), not the Taiwan phrase table ('twp'), which rewrites 截圖 as 截屏 and so
// misses the 截图 written in the directory; regional words (軟體, 影片) are the alias table's job.
const toSimplified = Converter({ from: 't', to: 'cn' });

/** Zero-width spaces and joiners, soft hyphen, word joiner, BOM, bidi marks, Mongolian vowel separator. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/gu;
const APOSTROPHES = /['\u2018\u2019\u02bc\u0060\u00b4]/gu;
const COMBINING_MARKS = /[\u0300-\u036f]/gu;
/** `tu2pian4ya1suo1`, `jie2tu2`: letters each followed by a tone number 1–5 (the last may have none). */
const TONE_NUMBERED = /^(?:[a-z]+[1-5])+[a-z]*$/;

const SYLLABLE =
  /^(?:[bpmfdtnlgkhjqxryw]|zh|ch|sh|z|c|s)?(?:a|ai|an|ang|ao|e|ei|en|eng|er|i|ia|ian|iang|iao|ie|in|ing|iong|iu|o|ong|ou|u|ua|uai|uan|uang|ue|ui|un|uo|v|ve|van|vn)$/;

function readsAsSyllables(letters: string): boolean {
  // Greedy from the longest syllable is enough to tell tone-numbered pinyin from names such as mp3 or pdf24.
  let start = 0;
  while (start < letters.length) {
    let length = Math.min(6, letters.length - start);
    while (length > 0 && !SYLLABLE.test(letters.slice(start, start + length))) length -= 1;
    if (length === 0) return false;
    start += length;
  }
  return true;
}

/** `tu2pian4` → `tu pian`, when every chunk before a number reads as pinyin; `mp3`, `pdf24`, `5118` stay. */
function dropToneNumbers(word: string): string {
  if (!TONE_NUMBERED.test(word)) return word;
  const chunks = word.split(/[1-5]/).filter((chunk) => chunk !== '');
  return chunks.every(readsAsSyllables) ? chunks.join(' ') : word;
}

/** Tone marks off (`tú piàn` → `tu pian`), `ü` as `v` the way pinyin keyboards type it; other accents folded too. */
function dropToneMarks(text: string): string {
  if (!/[^\u0000-\u007f]/.test(text)) return text;
  return text
    .replace(/ü|ǖ|ǘ|ǚ|ǜ/g, 'v')
    .normalize('NFD')
    .replace(COMBINING_MARKS, '')
    .normalize('NFC');
}

export function normalizeSearchText(text: string): string {
  const folded = dropToneMarks(toSimplified(text.normalize('NFKC').replace(INVISIBLE, '')).toLowerCase());
  return folded
    .replace(APOSTROPHES, ' ')
    .split(/\s+/u)
    .map(dropToneNumbers)
    .join(' ')
    .trim();
}
