import { planSearch } from '../src/catalog/search-query';
import { hanWords, normalizeSearchText, pinyinReadings } from '../src/catalog/search-text';

describe('reading latin letters as pinyin', () => {
  it('when the letters are whole syllables, then every reading is given, longer syllables first', () => {
    expect(pinyinReadings('jietu')).toEqual([{ syllables: ['jie', 'tu'] }, { syllables: ['ji', 'e', 'tu'] }]);
    expect(pinyinReadings('xian')).toEqual([{ syllables: ['xian'] }, { syllables: ['xi', 'an'] }]);
    expect(pinyinReadings('lvse')).toEqual([{ syllables: ['lv', 'se'] }]);
  });

  it('when the last syllable is still being typed, then it is read as the start of one', () => {
    expect(pinyinReadings('jietug')[0]).toEqual({ syllables: ['jie', 'tu'], partial: 'g' });
    expect(pinyinReadings('jietug').every((reading) => reading.partial === 'g')).toBe(true);
  });

  it('when the letters are no pinyin, then there is no reading', () => {
    expect(pinyinReadings('png')).toEqual([]);
    expect(pinyinReadings('c++')).toEqual([]);
  });

  it('when a hundred letters have many readings or none, then a few readings or none come back (no exhaustive search)', () => {
    expect(pinyinReadings('xian'.repeat(25))).toHaveLength(8);
    expect(pinyinReadings(`${'xian'.repeat(24)}xvan`)).toEqual([]);
    expect(planSearch(`${'xian'.repeat(24)}xvan`).required).toHaveLength(1);
  });
});

describe('cutting Chinese into words', () => {
  it('when a phrase mixes known and unknown words, then runs of single characters are joined back into words', () => {
    expect(hanWords('图片在线压缩工具')).toEqual(['图片', '在线', '压缩', '工具']);
    expect(hanWords('的截图工具')).toEqual(['的', '截图', '工具']);
    expect(hanWords('草料二维码')).toEqual(['草料', '二维码']);
  });
});

describe('planning a search', () => {
  it('when text is full-width or mixed case, then it is folded', () => {
    expect(normalizeSearchText('  ＰＤＦ　转换 ')).toBe('pdf 转换');
  });

  it('when a phrase has generic words or a lone suffix character, then only its specific words are required', () => {
    const plan = planSearch('免费的密码管理器');
    expect(plan.required.map((term) => term.text)).toEqual(['密码', '管理']);
    expect(plan.ranking.map((term) => term.text)).toEqual(expect.arrayContaining(['免费', '的', '器', '免费的密码管理器']));
  });

  it('when words are given with spaces, then each is required and spaced pinyin also ranks as one word', () => {
    const plan = planSearch('jie tu');
    expect(plan.required.map((term) => term.text)).toEqual(['jie', 'tu']);
    expect(plan.ranking.map((term) => term.text)).toEqual(['jietu', 'jie tu']);
    expect(planSearch('tupian压缩').required.map((term) => term.text)).toEqual(['tupian', '压缩']);
  });
});
