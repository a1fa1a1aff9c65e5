import { pinyin } from 'pinyin-pro';

/**
 * Text handling shared by the two sides of search: the per-tool document written at import time and the
 * plan made from a keyword. Both must cut text the same way, or a word indexed one way is looked up another.
 */

const HAN_CHARACTER = /\p{Script=Han}/u;

export function hasHan(text: string): boolean {
  return HAN_CHARACTER.test(text);
}

export { normalizeSearchText } from './search-normalize';

/** Splits text into runs of Chinese characters and runs of anything else: `tupian压缩` → `tupian`, `压缩`. */
export function scriptRuns(text: string): { text: string; han: boolean }[] {
  const runs: { text: string; han: boolean }[] = [];
  for (const character of text) {
    const han = hasHan(character);
    const last = runs[runs.length - 1];
    if (last && last.han === han) last.text += character;
    else runs.push({ text: character, han });
  }
  return runs;
}

// Characters that glue phrases rather than form words with their neighbours: a run of single characters
// is cut at them (`的截图` is `的` + `截图`, not one three-character word).
const FUNCTION_CHARACTERS = new Set([...'的地得了和与及或等并也都而是从对为把被让给将于之其可']);

export function isFunctionWord(word: string): boolean {
  return FUNCTION_CHARACTERS.has(word);
}

let wordSegmenter: Intl.Segmenter | undefined;

/** Node's built-in ICU word segmenter (dictionary-based for Chinese); no segmentation server is needed. */
function segmenter(): Intl.Segmenter {
  wordSegmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  return wordSegmenter;
}

/** A run of single characters ICU did not know as words: short runs are one word, longer ones pairs (most Chinese words have two characters). */
function chunkUnknownRun(run: string[]): string[] {
  if (run.length <= 3) return run.length ? [run.join('')] : [];
  const words: string[] = [];
  let index = 0;
  while (run.length - index > 3) {
    words.push(run.slice(index, index + 2).join(''));
    index += 2;
  }
  words.push(run.slice(index).join(''));
  return words;
}

/**
 * Words of a run of Chinese characters: `图片在线压缩工具` → 图片, 在线, 压缩, 工具. ICU's dictionary splits
 * words it does not know into single characters (在|线, 截|图); such runs are joined back into words.
 */
export function hanWords(run: string): string[] {
  const words: string[] = [];
  let singles: string[] = [];
  const flush = () => {
    words.push(...chunkUnknownRun(singles));
    singles = [];
  };
  for (const { segment } of segmenter().segment(run)) {
    const characters = [...segment];
    if (characters.length === 1 && !FUNCTION_CHARACTERS.has(segment)) {
      singles.push(segment);
    } else {
      flush();
      words.push(segment);
    }
  }
  flush();
  return words;
}

/** Toneless pinyin of each character of a run of Chinese characters (`ü` written `v`, as pinyin keyboards type it); `undefined` where a character has none. */
export function hanSyllables(run: string): (string | undefined)[] {
  const characters = [...run];
  let syllables = pinyin(run, { toneType: 'none', type: 'array', v: true });
  // Converted as a whole for context (长截图 → chang); one entry per character is expected, per character otherwise.
  if (syllables.length !== characters.length) syllables = characters.map((character) => pinyin(character, { toneType: 'none', v: true }));
  return syllables.map((syllable) => (/^[a-z]+$/.test(syllable) && PINYIN_SYLLABLES.has(syllable) ? syllable : undefined));
}

/** Every toneless pinyin syllable (`ü` as `v`), without the interjections m, n, ng, hm, hng that would make any consonant "pinyin". */
export const PINYIN_SYLLABLES: ReadonlySet<string> = new Set(
  (
    'a ai an ang ao ba bai ban bang bao bei ben beng bi bian biao bie bin bing bo bu ca cai can cang cao ce cen ceng cha chai chan ' +
    'chang chao che chen cheng chi chong chou chu chua chuai chuan chuang chui chun chuo ci cong cou cu cuan cui cun cuo da dai dan ' +
    'dang dao de dei den deng di dia dian diao die ding diu dong dou du duan dui dun duo e ei en eng er fa fan fang fei fen feng fo ' +
    'fou fu ga gai gan gang gao ge gei gen geng gong gou gu gua guai guan guang gui gun guo ha hai han hang hao he hei hen heng hong ' +
    'hou hu hua huai huan huang hui hun huo ji jia jian jiang jiao jie jin jing jiong jiu ju juan jue jun ka kai kan kang kao ke kei ' +
    'ken keng kong kou ku kua kuai kuan kuang kui kun kuo la lai lan lang lao le lei leng li lia lian liang liao lie lin ling liu lo ' +
    'long lou lu luan lun luo lv lve ma mai man mang mao me mei men meng mi mian miao mie min ming miu mo mou mu na nai nan nang nao ' +
    'ne nei nen neng ni nian niang niao nie nin ning niu nong nou nu nuan nuo nv nve o ou pa pai pan pang pao pei pen peng pi pian ' +
    'piao pie pin ping po pou pu qi qia qian qiang qiao qie qin qing qiong qiu qu quan que qun ran rang rao re ren reng ri rong rou ' +
    'ru rua ruan rui run ruo sa sai san sang sao se sen seng sha shai shan shang shao she shei shen sheng shi shou shu shua shuai ' +
    'shuan shuang shui shun shuo si song sou su suan sui sun suo ta tai tan tang tao te tei teng ti tian tiao tie ting tong tou tu ' +
    'tuan tui tun tuo wa wai wan wang wei wen weng wo wu xi xia xian xiang xiao xie xin xing xiong xiu xu xuan xue xun ya yan yang ' +
    'yao ye yi yin ying yo yong you yu yuan yue yun za zai zan zang zao ze zei zen zeng zha zhai zhan zhang zhao zhe zhei zhen zheng ' +
    'zhi zhong zhou zhu zhua zhuai zhuan zhuang zhui zhun zhuo zi zong zou zu zuan zui zun zuo'
  ).split(' '),
);

const SYLLABLE_PREFIXES: ReadonlySet<string> = new Set([...PINYIN_SYLLABLES].flatMap((syllable) => [...syllable].map((_, end) => syllable.slice(0, end + 1))));
const LONGEST_SYLLABLE = Math.max(...[...PINYIN_SYLLABLES].map((syllable) => syllable.length));

export interface PinyinReading {
  /** Whole syllables, in order. */
  syllables: string[];
  /** The start of one more syllable, being typed (`jietug`): set only when the letters have no reading in whole syllables. */
  partial?: string;
}

/**
 * The ways a run of latin letters reads as pinyin: `jietu` → jie·tu; `xian` → xian or xi·an. Longer syllables
 * are tried first and at most `limit` readings are returned. Letters that are no pinyin give none.
 */
export function pinyinReadings(letters: string, limit = 8): PinyinReading[] {
  if (!/^[a-z]+$/.test(letters)) return [];
  const end = letters.length;
  // finishes[i]: the letters from i on read as whole syllables (or, for the partial pass, end in a syllable's start).
  // Walking only into positions that finish keeps the search linear, whatever the length.
  const finishes = (allowPartial: boolean): boolean[] => {
    const result: boolean[] = new Array<boolean>(end + 1).fill(false);
    result[end] = !allowPartial;
    for (let start = end - 1; start >= 0; start -= 1) {
      if (allowPartial && SYLLABLE_PREFIXES.has(letters.slice(start))) result[start] = true;
      for (let length = 1; length <= LONGEST_SYLLABLE && start + length <= end && !result[start]; length += 1) {
        if (PINYIN_SYLLABLES.has(letters.slice(start, start + length)) && result[start + length]) result[start] = true;
      }
    }
    return result;
  };
  const readings: PinyinReading[] = [];
  const walk = (start: number, syllables: string[], viable: boolean[], allowPartial: boolean) => {
    if (readings.length >= limit) return;
    if (start === end) {
      readings.push({ syllables });
      return;
    }
    for (let length = Math.min(LONGEST_SYLLABLE, end - start); length >= 1 && readings.length < limit; length -= 1) {
      const piece = letters.slice(start, start + length);
      if (PINYIN_SYLLABLES.has(piece) && viable[start + length]) walk(start + length, [...syllables, piece], viable, allowPartial);
      else if (allowPartial && start + length === end && SYLLABLE_PREFIXES.has(piece)) readings.push({ syllables, partial: piece });
    }
  };
  const whole = finishes(false);
  if (whole[0]) walk(0, [], whole, false);
  else {
    const partial = finishes(true);
    if (partial[0]) walk(0, [], partial, true);
  }
  return readings;
}
