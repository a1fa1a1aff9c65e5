import { buildAliasGroups, planTerms } from '../src/catalog/search-terms';
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
    expect(planTerms(`${'xian'.repeat(24)}xvan`).required).toHaveLength(1);
  });
});

describe('cutting Chinese into words', () => {
  it('when a phrase mixes known and unknown words, then runs of single characters are joined back into words', () => {
    expect(hanWords('图片在线压缩工具')).toEqual(['图片', '在线', '压缩', '工具']);
    expect(hanWords('的截图工具')).toEqual(['的', '截图', '工具']);
    expect(hanWords('草料二维码')).toEqual(['草料', '二维码']);
  });
});

describe('normalizing what is typed and what is indexed', () => {
  it('when text is full-width, mixed case, traditional or holds invisible characters, then it is folded to one form', () => {
    expect(normalizeSearchText('  ＰＤＦ　转换 ')).toBe('pdf 转换');
    expect(normalizeSearchText('截圖 圖片壓縮 網盤 思維導圖')).toBe('截图 图片压缩 网盘 思维导图');
    expect(normalizeSearchText('截\u200b图\ufeff')).toBe('截图');
  });

  it('when pinyin carries tone marks, tone numbers or apostrophes, then they are dropped', () => {
    expect(normalizeSearchText('tú piàn yā suō')).toBe('tu pian ya suo');
    expect(normalizeSearchText('tu2pian4ya1suo1')).toBe('tu pian ya suo');
    expect(normalizeSearchText("jie'tu")).toBe('jie tu');
    expect(normalizeSearchText('lǜ sè')).toBe('lv se');
  });

  it('when digits belong to a name (mp3, pdf24, 5118, 7-zip), then they stay', () => {
    expect(normalizeSearchText('MP3 PDF24 5118 7-Zip h5')).toBe('mp3 pdf24 5118 7-zip h5');
  });
});

describe('planning a search', () => {
  it('when a sentence has filler and question words, then only its specific words are required', () => {
    const plan = planTerms('有没有免费的在线pdf合并工具');
    expect(plan.required.map((term) => term.text)).toEqual(['pdf', '合并']);
    expect(plan.ignored).toEqual(expect.arrayContaining(['免费', '在线', '工具']));
    expect(planTerms('推荐一个好用的截图软件').required.map((term) => term.text)).toEqual(['截图']);
  });

  it('when the query is only filler words, then they are required (在线工具 is a category)', () => {
    expect(planTerms('在线工具').required.map((term) => term.text)).toEqual(['在线', '工具']);
  });

  it('when latin words are given with spaces, then they are one term: joined, or each on its own', () => {
    expect(planTerms('jie tu').required).toEqual([{ text: 'jie tu', alternatives: [['jietu']], fallback: [['jie', 'tu']] }]);
    expect(planTerms('tupian压缩').required.map((term) => term.text)).toEqual(['tupian', '压缩']);
  });

  it('when the query holds an alias, in either language and inside a phrase, then the term is found under every member of its group', () => {
    const aliases = buildAliasGroups([
      { term: '截图', alias: 'Screenshot' },
      { term: '截图', alias: '截屏' },
      { term: '谷歌', alias: 'google' },
    ]);
    expect(planTerms('screenshot', aliases).required[0]!.alternatives).toEqual([['screenshot'], ['截图'], ['截屏']]);
    const plan = planTerms('谷歌翻译', aliases);
    expect(plan.required.map((term) => term.alternatives[0])).toEqual([['谷歌'], ['翻译']]);
    expect(plan.required[0]!.alternatives).toContainEqual(['google']);
    // A latin alias only at word boundaries: `googled` is not `google`.
    expect(planTerms('googled', aliases).required[0]!.alternatives).toEqual([['googled']]);
  });
});
