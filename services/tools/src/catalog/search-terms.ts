import { normalizeSearchText } from './search-normalize';
import { hanWords, hasHan, isFunctionWord, scriptRuns } from './search-text';

/**
 * How a keyword is searched: its words (terms), each found under any of its alternatives (the word itself,
 * its aliases, spaced pinyin joined), an alternative being parts that must all match. Filler and question
 * words (有没有, 推荐, 好用的, 工具…) only rank, unless the query has nothing else.
 */

export interface Term {
  /** The words of the query this term stands for, as normalized. */
  text: string;
  /** The first is the query's own reading; the others are aliases or other readings. */
  alternatives: string[][];
  /** Read only when no alternative matches anything: spaced words each on their own (`jie` … `tu`). */
  fallback?: string[][];
}

export interface TermPlan {
  normalized: string;
  required: Term[];
  /** The whole phrase: it adds to a tool's rank (图片压缩 the tag above 图片 … 压缩 apart), never decides whether it is found. */
  optional: Term[];
  /**
   * Filler words and lone characters, left out: they would only rank, and each matches a large share of
   * the catalog (在线, 工具), which costs more than it tells.
   */
  ignored: string[];
}

/** Operator-edited equivalences: every member of a group finds what the others find. */
export interface AliasGroups {
  /** A normalized alias or term → the other members of its groups. */
  alternatives: Map<string, string[]>;
  /** Keys by their first character, longest first: the query is scanned for them. */
  byFirst: Map<string, string[]>;
}

export function buildAliasGroups(rows: { term: string; alias: string }[]): AliasGroups {
  const groups = new Map<string, Set<string>>();
  for (const row of rows) {
    const term = normalizeSearchText(row.term);
    const alias = normalizeSearchText(row.alias);
    if (term === '' || alias === '') continue;
    const group = groups.get(term) ?? new Set([term]);
    group.add(alias);
    groups.set(term, group);
  }
  const alternatives = new Map<string, Set<string>>();
  for (const group of groups.values()) {
    for (const member of group) {
      const others = alternatives.get(member) ?? new Set<string>();
      for (const other of group) if (other !== member) others.add(other);
      alternatives.set(member, others);
    }
  }
  const byFirst = new Map<string, string[]>();
  for (const key of alternatives.keys()) byFirst.set(key[0]!, [...(byFirst.get(key[0]!) ?? []), key]);
  for (const keys of byFirst.values()) keys.sort((a, b) => b.length - a.length);
  return { alternatives: new Map([...alternatives].map(([key, set]) => [key, [...set]])), byFirst };
}

export const NO_ALIASES: AliasGroups = buildAliasGroups([]);

/** Words that say nothing about which tool is wanted, in a directory of tools. */
export const FILLER_WORDS = new Set([
  ...(
    '有没有 没有 有什么 有哪些 哪些 哪个 什么 推荐 推荐下 求 求推荐 请问 我想 想要 需要 一个 一款 一些 好用 好用的 免费 免费的 最好 最好的 比较 好的 ' +
    '怎么 怎样 如何 可以 能 吗 呢 啊 吧 用 好 一下 帮我 工具 软件 软体 在线 网站 网页 平台 神器 官网 下载 网页版 电脑版 手机版 中文版 应用 小工具 电脑 手机 电脑端 手机端 ' +
    'app free online tool tools software best the for of and or with to in on is website site'
  ).split(' '),
  ...'的地得了和与及或等并也都而是从对为把被让给将于之其可有'.split(''),
]);

/** Readings of spaced words each on their own, their aliases combined: at most this many. */
const MAX_FALLBACK_READINGS = 8;

const isLatinWord = (text: string) => /^[a-z0-9]+$/.test(text);

/** The alias keys found in the query, longest first at each position; latin keys only at word boundaries. */
function aliasSpans(text: string, aliases: AliasGroups): { start: number; end: number; key: string }[] {
  const spans: { start: number; end: number; key: string }[] = [];
  const latin = (character: string | undefined) => character !== undefined && /[a-z0-9]/.test(character);
  for (let start = 0; start < text.length; ) {
    const key = (aliases.byFirst.get(text[start]!) ?? []).find(
      (candidate) =>
        text.startsWith(candidate, start) &&
        !(latin(candidate[0]) && latin(text[start - 1])) &&
        !(latin(candidate[candidate.length - 1]) && latin(text[start + candidate.length])),
    );
    if (key) {
      spans.push({ start, end: start + key.length, key });
      start += key.length;
    } else start += 1;
  }
  return spans;
}

/** Parts of one space-free piece: script runs (`pdf合并` → pdf, 合并), Chinese runs cut into words. */
function pieceParts(piece: string): string[] {
  return scriptRuns(piece).flatMap((run) => (run.han && [...run.text].length >= 3 ? hanWords(run.text) : [run.text]));
}

export function planTerms(keyword: string, aliases: AliasGroups = NO_ALIASES): TermPlan {
  const normalized = normalizeSearchText(keyword);
  const pieces: { text: string; alias?: boolean; spaceBefore: boolean }[] = [];
  let cursor = 0;
  const addPlain = (text: string) => {
    text.split(' ').forEach((word, index) => {
      for (const [partIndex, part] of pieceParts(word).entries()) pieces.push({ text: part, spaceBefore: index > 0 || partIndex === 0 });
    });
  };
  for (const span of aliasSpans(normalized, aliases)) {
    addPlain(normalized.slice(cursor, span.start));
    pieces.push({ text: span.key, alias: true, spaceBefore: true });
    cursor = span.end;
  }
  addPlain(normalized.slice(cursor));
  // Punctuation alone (`--`, `=`) finds nothing and says nothing.
  const parts = pieces.filter((piece) => /[\p{L}\p{N}]/u.test(piece.text));

  const hanWordsPresent = parts.some((part) => hasHan(part.text) && [...part.text].length > 1);
  const optionalText = (part: (typeof parts)[number]) =>
    !part.alias && (FILLER_WORDS.has(part.text) || isFunctionWord(part.text) || (hasHan(part.text) && [...part.text].length === 1 && hanWordsPresent));
  const specific = parts.filter((part) => !optionalText(part));
  const needed = specific.length > 0 ? specific : parts;

  const required: Term[] = [];
  const optional: Term[] = [];
  const ignored: string[] = [];
  // A text of several words or scripts (`json格式化`, `screen recording`) is also found word by word.
  const readings = (text: string): string[][] => {
    // Lone characters beside words are suffixes (编辑器 → 编辑) or particles: dropped, as in the query itself.
    let split = text.split(' ').flatMap(pieceParts).filter((part) => !(hasHan(part) && [...part].length === 1));
    // A long word the dictionary knows whole (代码编辑器) is also read as its two-character words.
    if (split.length === 1 && hasHan(text) && !/[^\p{Script=Han}]/u.test(text) && [...text].length >= 4) {
      split = [...text].flatMap((character, index, characters) => (index % 2 === 0 && index + 1 < characters.length ? [character + characters[index + 1]] : []));
    }
    // Not into single letters or characters (`p图` is not `p` and `图`).
    return split.length > 1 && split.every((part) => [...part].length > 1) ? [[text], split] : [[text]];
  };
  const termOf = (text: string): Term => ({
    text,
    alternatives: [...readings(text), ...(aliases.alternatives.get(text) ?? []).flatMap(readings)],
  });
  // Consecutive latin words (`jie tu`, `power bi`, `7 zip`, `chart js`) are one term: joined, or each on its
  // own, a word that is an alias key (`js`) then under its aliases too (`chart` … `javascript`).
  let group: string[] = [];
  const closeGroup = () => {
    if (group.length === 1) required.push(termOf(group[0]!));
    else if (group.length > 1) {
      const joined = group.join('');
      required.push({ text: group.join(' '), alternatives: [[joined], ...(aliases.alternatives.get(joined) ?? []).flatMap(readings)], fallback: wordByWord(group) });
    }
    group = [];
  };
  const wordByWord = (words: string[]): string[][] => {
    let combined: string[][] = [[]];
    for (const word of words) {
      const readingsOfWord = [[word], ...(aliases.alternatives.get(word) ?? []).flatMap(readings)];
      combined = combined.flatMap((parts) => readingsOfWord.map((reading) => [...parts, ...reading])).slice(0, MAX_FALLBACK_READINGS);
    }
    return combined;
  };
  for (const part of needed) {
    const latin = isLatinWord(part.text);
    if (latin && (group.length === 0 || part.spaceBefore)) group.push(part.text);
    else {
      closeGroup();
      if (latin) group.push(part.text);
      else required.push(termOf(part.text));
    }
  }
  closeGroup();
  for (const part of parts) if (!needed.includes(part)) ignored.push(part.text);
  // The whole query ranks as one phrase too (图片压缩 the tag above 图片 … 压缩 apart).
  if (parts.length > 1) {
    const phrase = termOf(normalized.replace(/ /g, ''));
    // Read word by word without its filler words: 工具 and 在线 start forms of most tools in a large
    // catalog, so looking them up costs more than the little they rank (图片在线压缩工具: 1 → 13 ms).
    const alternatives = phrase.alternatives.flatMap((words) => {
      const kept = words.filter((word) => !FILLER_WORDS.has(word) && !isFunctionWord(word));
      return kept.length === words.length || kept.length > 1 ? [kept] : [];
    });
    optional.push({ ...phrase, alternatives });
  }
  return { normalized, required, optional, ignored };
}
