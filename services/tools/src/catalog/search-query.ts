import { MIN_TYPO_WORD_LENGTH, typoVariants } from './search-document';
import { GENERIC_QUERY_WORDS, hanWords, hasHan, normalizeSearchText, pinyinReadings, scriptRuns } from './search-text';

/** One term of a search, with the index keys that find it (the same kinds as in a `SearchDocument`). */
export interface QueryTerm {
  /** Normalized, as it must appear. */
  text: string;
  /** `g:` keys of its characters (one) or character pairs: every one must be in a tool that contains it. */
  gramKeys: string[];
  /** Its readings as pinyin: the syllable keys every match has, and the LIKE pattern over the pinyin text. */
  pinyin: { keys: string[]; pattern: string }[];
  /** Keys any one of which is a match: initials (`in:`) and squashed pinyin/initials of whole values (`x:`). */
  exactKeys: string[];
  /** `d:` keys: one of them in common with a tool word means one edit apart. Empty when the term is no typo candidate. */
  typoKeys: string[];
}

export interface SearchPlan {
  /** Every one must match (typos included). */
  required: QueryTerm[];
  /** Only rank: the whole of a phrase, its generic words (工具, 在线), spaced pinyin joined, the whole query. */
  ranking: QueryTerm[];
}

function gramKeys(text: string): string[] {
  const characters = [...text];
  if (characters.length === 1) return [`g:${text}`];
  const grams = new Set<string>();
  for (let index = 0; index + 1 < characters.length; index += 1) {
    const pair = characters[index]! + characters[index + 1]!;
    if (!/\s/u.test(pair)) grams.add(`g:${pair}`);
  }
  return [...grams];
}

function term(text: string): QueryTerm {
  const pinyin = pinyinReadings(text).map((reading) => {
    // Adjacent pairs of syllables narrow far better than syllables alone (`jian ying` vs every tool with both).
    const { syllables } = reading;
    const keys = new Set(syllables.length > 1 ? syllables.slice(1).map((syllable, index) => `py:${syllables[index]} ${syllable}`) : syllables.map((syllable) => `py:${syllable}`));
    if (reading.partial) keys.add(`pp:${reading.partial.slice(0, 2)}`);
    // The pinyin text has a space before and after every syllable: whole syllables from a syllable start.
    const pattern = reading.partial
      ? `% ${[...reading.syllables, reading.partial].join(' ')}%`
      : `% ${reading.syllables.join(' ')} %`;
    return { keys: [...keys], pattern };
  });
  const latin = /^[a-z0-9]+$/.test(text);
  const typoCandidate = latin && /[a-z]/.test(text) && text.length >= MIN_TYPO_WORD_LENGTH - 1;
  return {
    text,
    gramKeys: gramKeys(text),
    pinyin,
    exactKeys: latin && text.length >= 2 ? [`in:${text}`, `x:${text}`] : [],
    // A word one letter short of a five-letter word is only found by that word's own deletions.
    typoKeys: typoCandidate ? typoVariants(text).filter((variant) => variant.length >= MIN_TYPO_WORD_LENGTH - 1).map((variant) => `d:${variant}`) : [],
  };
}

/** The parts of one space-separated word: script runs (`tupian压缩` → tupian, 压缩), longer Chinese runs cut into words. */
function wordParts(word: string): string[] {
  return scriptRuns(word).flatMap((run) => (run.han && [...run.text].length >= 3 ? hanWords(run.text) : [run.text]));
}

const isWholePinyin = (word: string) => pinyinReadings(word).some((reading) => reading.partial === undefined);

/**
 * How a keyword is searched. Space-separated words must all match, in any order. A word made of several
 * parts (scripts, Chinese words) needs each specific part; generic parts (工具, 在线, 的), lone characters
 * and the whole word only rank. Spaced pinyin (`jie tu`) ranks as one word too.
 */
export function planSearch(keyword: string): SearchPlan {
  const normalized = normalizeSearchText(keyword);
  const words = normalized.split(' ').filter((word) => word !== '');
  const required = new Map<string, QueryTerm>();
  const ranking = new Map<string, QueryTerm>();
  const rankBy = (text: string) => {
    if (!required.has(text) && !ranking.has(text)) ranking.set(text, term(text));
  };

  for (const word of words) {
    const parts = wordParts(word);
    // A lone Chinese character beside Chinese words is mostly a suffix (管理器, 转换器): it ranks, it is not required.
    const isHanWord = (part: string) => hasHan(part) && [...part].length > 1;
    const loneCharacter = (part: string) => hasHan(part) && !isHanWord(part) && parts.some(isHanWord);
    const specific = parts.filter((part) => !GENERIC_QUERY_WORDS.has(part) && !loneCharacter(part));
    const needed = new Set(specific.length > 0 ? specific : parts);
    for (const part of parts) if (needed.has(part) && !required.has(part)) required.set(part, term(part));
    for (const part of parts) if (!needed.has(part)) rankBy(part);
    if (parts.length > 1) rankBy(word);
  }

  let group: string[] = [];
  const closeGroup = () => {
    if (group.length > 1) rankBy(group.join(''));
    group = [];
  };
  for (const word of words) {
    if (/^[a-z]+$/.test(word) && isWholePinyin(word)) group.push(word);
    else closeGroup();
  }
  closeGroup();
  if (words.length > 1) rankBy(normalized);

  for (const text of required.keys()) ranking.delete(text);
  return { required: [...required.values()], ranking: [...ranking.values()] };
}
