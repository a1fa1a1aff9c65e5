/**
 * The website as a 导航 site (issue 40): cards that open the tool's site in a new tab through the counted
 * /go/ link, the home page's 热门/最新 lists and sections, category sorts, English fields on /en/ pages
 * and hreflang only where a page is in English, and the favicon, web manifest and og:image.
 */
import request from 'supertest';
import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { importCatalog } from '../src/catalog/importer';
import { importJson } from './support/harness';
import { useSampleSite } from './support/sample-site';

const site = useSampleSite();

const page = (path: string) => request(site.app).get(path);
const cardSlugs = (body: string) => [...body.matchAll(/<li class="tool-card" data-slug="([^"]+)"/g)].map((match) => match[1]!);
const listSlugs = (body: string, heading: string) => {
  const start = body.indexOf(`id="${heading}"`);
  if (start < 0) return null;
  return [...body.slice(start, body.indexOf('</section>', start)).matchAll(/<li class="ranking__item" data-slug="([^"]+)"/g)].map((match) => match[1]!);
};

/** A category whose names sort differently in pinyin and in English, with set visits and creation times. */
const sorting = {
  categories: [{ slug: 'sorting', name: '排序测试', sort_order: 90, name_en: 'Sorting', description_en: 'Tools to test sorting' }],
  tools: [
    { slug: 's-zoom', name: 'Zoom', url: 'https://zoom.example', category: 'sorting', description: '视频会议', description_en: 'Video meetings' },
    { slug: 's-weixin', name: '微信', name_en: 'WeChat', url: 'https://weixin.example', category: 'sorting', description: '聊天', description_en: 'Chat' },
    { slug: 's-kimi', name: 'Kimi', url: 'https://kimi.example', category: 'sorting', description: 'AI 助手', description_en: 'AI assistant' },
    { slug: 's-feishu', name: '飞书', name_en: 'Lark', url: 'https://feishu.example', category: 'sorting', description: '协作办公', description_en: 'Work together' },
    { slug: 's-baidu', name: '百度', name_en: 'Baidu', url: 'https://baidu.example', category: 'sorting', description: '搜索引擎' },
    { slug: 's-apple', name: 'Apple', url: 'https://apple.example', category: 'sorting', description: '苹果官网', description_en: 'Apple’s site' },
    { slug: 's-aliyun', name: '阿里云', name_en: 'Alibaba Cloud', url: 'https://aliyun.example', category: 'sorting', description: '云计算', description_en: 'Cloud computing' },
  ],
};

describe('a fresh install', () => {
  it('when nobody has visited any tool yet, then the home page shows no 热门 list and no "0 次访问", and 最新 lists the newest tools first', async () => {
    await site.harness.db('tools').where({ slug: 'obsidian' }).update({ created_at: new Date(Date.now() + 60000) });
    const res = await page('/');
    expect(res.status).toBe(200);
    expect(listSlugs(res.text, 'popular-heading')).toBeNull();
    expect(res.text).not.toContain('次访问');
    expect((await page('/tool/obsidian')).text).not.toContain('次访问');
    const latest = listSlugs(res.text, 'latest-heading')!;
    expect(latest.length).toBe(10);
    expect(latest[0]).toBe('obsidian');
    const newest = await site.harness.db('tools').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(10).pluck('slug');
    expect(latest).toEqual(newest);
  });
});

describe('cards', () => {
  it('when a card is shown (home, category, search, related), then its main link opens the tool through /go/ in a new tab, and its details link opens its page here', async () => {
    for (const path of ['/', '/category/design', '/search?q=figma', '/tool/figma', '/en/category/design']) {
      const res = await page(path);
      const cards = [...res.text.matchAll(/<li class="tool-card" data-slug="([^"]+)">\s*<a class="tool-card__link" ([^>]*)>[\s\S]*?<a class="tool-card__detail" href="([^"]+)" aria-label="([^"]+)">([^<]+)<\/a>/g)];
      expect({ path, cards: cards.length > 0 }).toEqual({ path, cards: true });
      for (const [, slug, attributes, detail, label, text] of cards) {
        expect(attributes).toBe(`href="/go/${slug}" target="_blank" rel="nofollow noopener"`);
        expect(detail).toBe(`${path.startsWith('/en/') ? '/en' : ''}/tool/${slug}`);
        expect(label).toContain(text!);
      }
    }
    // A card's main link counts the visit: it is the same /go/ redirect the tool page uses.
    const before = Number((await site.harness.db('tools').where({ slug: 'figma' }).first('visits')).visits);
    expect((await page('/go/figma')).headers.location).toBe('https://www.figma.com/');
    expect(Number((await site.harness.db('tools').where({ slug: 'figma' }).first('visits')).visits)).toBe(before + 1);
    await site.harness.db('tools').where({ slug: 'figma' }).update({ visits: 0 });
  });
});

describe('category sorts and English fields', () => {
  beforeAll(async () => {
    expect((await importJson(site.harness.db, sorting)).tools.rejected).toEqual([]);
    const visits: Record<string, number> = { 's-kimi': 50, 's-apple': 30, 's-weixin': 30, 's-zoom': 5 };
    for (const [slug, count] of Object.entries(visits)) await site.harness.db('tools').where({ slug }).update({ visits: count });
    const order = ['s-baidu', 's-zoom', 's-apple', 's-aliyun', 's-feishu', 's-kimi', 's-weixin'];
    for (const [index, slug] of order.entries()) await site.harness.db('tools').where({ slug }).update({ created_at: new Date(Date.UTC(2026, 0, 1 + index)) });
  });

  it('when a category is sorted by 热门, 最新 or 名称, then its tools come in that order, from plain links that keep the sort across pages', async () => {
    const popular = await page('/category/sorting');
    const apple = (await site.harness.db('tools').where({ slug: 's-apple' }).first('id')).id as number;
    const weixin = (await site.harness.db('tools').where({ slug: 's-weixin' }).first('id')).id as number;
    const tied = apple < weixin ? ['s-apple', 's-weixin'] : ['s-weixin', 's-apple'];
    // Most visited first; equal counts by id; never-visited tools after, by id.
    expect(cardSlugs(popular.text).slice(0, 4)).toEqual(['s-kimi', ...tied, 's-zoom']);
    expect(popular.text).toContain('<a class="sort__link sort__link--current" href="/category/sorting" aria-current="true">热门</a>');
    expect(popular.text).toContain('<a class="sort__link" href="/category/sorting?sort=latest">最新</a>');
    expect(popular.text).not.toContain('<meta name="robots"');

    const latest = await page('/category/sorting?sort=latest');
    expect(cardSlugs(latest.text)).toEqual(['s-weixin', 's-kimi', 's-feishu', 's-aliyun', 's-apple', 's-zoom', 's-baidu']);
    // Another order of the same tools: followed, not indexed.
    expect(latest.text).toContain('<meta name="robots" content="noindex, follow">');

    // By pinyin, so Chinese and Latin names interleave: a(阿里云, Apple) b(百度) f(飞书) k(Kimi) w(微信) z(Zoom).
    const byName = await page('/category/sorting?sort=name');
    expect(cardSlugs(byName.text)).toEqual(['s-aliyun', 's-apple', 's-baidu', 's-feishu', 's-kimi', 's-weixin', 's-zoom']);
    // In English by the English names: Kimi before Lark (飞书).
    const english = await page('/en/category/sorting?sort=name');
    expect(cardSlugs(english.text)).toEqual(['s-aliyun', 's-apple', 's-baidu', 's-kimi', 's-feishu', 's-weixin', 's-zoom']);
    expect(english.text).toContain('<a class="lang-switch" data-switch-lang href="/category/sorting?sort=name"');
  });

  it('when a sorted category has several pages, then the pager keeps the sort', async () => {
    const tools = Array.from({ length: 30 }, (_, index) => ({ slug: `pg-${String(index).padStart(2, '0')}`, name: `Page ${index}`, url: `https://pg.example/${index}`, category: 'paged' }));
    expect((await importJson(site.harness.db, { categories: [{ slug: 'paged', name: '分页排序', sort_order: 91 }], tools })).tools.rejected).toEqual([]);
    try {
      const first = await page('/category/paged?sort=name');
      expect(first.text).toContain('href="/category/paged?sort=name&amp;page=2" rel="next"');
      const second = await page('/category/paged?sort=name&page=2');
      expect(second.status).toBe(200);
      expect(cardSlugs(second.text)).toEqual(tools.map((tool) => tool.slug).sort().slice(24));
      expect(second.text).toContain('href="/category/paged?sort=name" rel="prev"');
      expect((await page('/category/paged?sort=latest&page=3')).status).toBe(404);
    } finally {
      await site.harness.db('tools').where('slug', 'like', 'pg-%').delete();
      await site.harness.db('categories').where({ slug: 'paged' }).delete();
    }
  });

  it('when an editor filled English fields, then /en/ pages show them, fall back to Chinese (marked as Chinese) elsewhere, and only English pages carry hreflang', async () => {
    const tool = await page('/en/tool/s-feishu').set('Host', 'tools.example.org');
    expect(tool.text).toContain('<h1 class="tool__name">Lark</h1>');
    expect(tool.text).toContain('<p class="tool__description">Work together</p>');
    expect(tool.text).toContain('<title>Lark - Sorting - Tool Directory</title>');
    expect(tool.text).toContain('<link rel="canonical" href="http://tools.example.org/en/tool/s-feishu">');
    expect(tool.text).toContain('<link rel="alternate" hreflang="zh-CN" href="http://tools.example.org/tool/s-feishu">');
    expect(tool.text).toContain('<link rel="alternate" hreflang="en" href="http://tools.example.org/en/tool/s-feishu">');
    expect(tool.text).toContain('<link rel="alternate" hreflang="x-default" href="http://tools.example.org/tool/s-feishu">');
    const chinese = await page('/tool/s-feishu');
    expect(chinese.text).toContain('<h1 class="tool__name">飞书</h1>');
    expect(chinese.text).toContain('hreflang="en"');

    // 百度 has an English name but a Chinese description only: its page is not in English.
    const baidu = await page('/en/tool/s-baidu').set('Host', 'tools.example.org');
    expect(baidu.text).toContain('<h1 class="tool__name">Baidu</h1>');
    expect(baidu.text).toContain('<p class="tool__description"><span lang="zh-CN">搜索引擎</span></p>');
    expect(baidu.text).not.toContain('hreflang');
    expect(baidu.text).toContain('<link rel="canonical" href="http://tools.example.org/tool/s-baidu">');
    expect((await page('/tool/s-baidu')).text).not.toContain('hreflang');

    // The category: English name, and 6 of its 7 tools' pages are English.
    const category = await page('/en/category/sorting');
    expect(category.text).toContain('<h1 class="page-head__title">Sorting</h1>');
    expect(category.text).toContain('hreflang="en"');
    expect(category.text).toContain('<span class="tool-card__name">WeChat</span>');
    // A category with an English name but tools in Chinese: its tools marked as Chinese, and no English claim.
    const design = await page('/en/category/design');
    expect(design.text).toContain('<h1 class="page-head__title">Design</h1>');
    expect(design.text).toContain('<span class="tool-card__description"><span lang="zh-CN">基于浏览器的协作式界面设计工具');
    expect(design.text).not.toContain('hreflang');
    // The home page: 1 of 16 categories' pages is English, so it claims none.
    expect((await page('/en/')).text).not.toContain('hreflang');

    // The sitemap says the same as the pages.
    const sitemap = (await page('/sitemap-tools-1.xml').set('Host', 'tools.example.org')).text;
    expect(sitemap).toContain('<loc>http://tools.example.org/en/tool/s-feishu</loc>');
    expect(sitemap).not.toContain('/en/tool/s-baidu');
    const pages = (await page('/sitemap-pages.xml').set('Host', 'tools.example.org')).text;
    expect(pages).toContain('<loc>http://tools.example.org/en/category/sorting</loc>');
    expect(pages).not.toContain('/en/category/design');
    expect(pages).not.toContain('<loc>http://tools.example.org/en/</loc>');
  });

  it('when an English field is changed by hand, then cached pages show it after the next revision check', async () => {
    let clock = 5_000_000;
    const cached = site.harness.app({ clock: () => new Date(clock), config: { SITE_CACHE_TTL_MS: '600000', ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000' } });
    for (const path of ['/en/tool/s-feishu', '/category/sorting?sort=name', '/category/sorting?sort=latest', '/en/']) expect((await request(cached).get(path)).status).toBe(200);
    const queries: string[] = [];
    const onQuery = (query: { sql: string }) => queries.push(query.sql);
    site.harness.db.on('query', onQuery);
    try {
      // Each sort is its own cache entry: asked again, none reads the database.
      for (const path of ['/category/sorting?sort=name', '/category/sorting?sort=latest', '/category/sorting?sort=name']) await request(cached).get(path);
      expect(queries).toEqual([]);
      const home = (await request(cached).get('/en/')).text;
      expect(home).toContain('<span class="tool-card__name">Lark</span>');
      await site.harness.db('tools').where({ slug: 's-feishu' }).update({ name_en: 'Feishu Lark' });
      clock += 1000;
      expect((await request(cached).get('/en/tool/s-feishu')).text).toContain('<h1 class="tool__name">Feishu Lark</h1>');
      // The home page's kept HTML goes with its data: the change shows there too.
      expect((await request(cached).get('/en/')).text).toContain('<span class="tool-card__name">Feishu Lark</span>');
    } finally {
      site.harness.db.off('query', onQuery);
      await site.harness.db('tools').where({ slug: 's-feishu' }).update({ name_en: 'Lark' });
    }
  });

  it('when English fields come in a CSV file, then they are imported; a CSV without them still imports, and unknown extra columns are refused', async () => {
    const repository = createCatalogRepository(site.harness.db);
    const header = 'slug,name,description,url,icon,category,tags,is_featured';
    const withEnglish = `${header},name_en,description_en\ns-csv,表格工具,用表格,https://csv.example,,sorting,,false,Sheet tool,Use sheets\n`;
    const report = await importCatalog(repository, withEnglish, 'csv');
    expect(report.tools).toEqual({ created: 1, updated: 0, unchanged: 0, rejected: [] });
    expect(await site.harness.db('tools').where({ slug: 's-csv' }).first('name_en', 'description_en')).toEqual({ name_en: 'Sheet tool', description_en: 'Use sheets' });
    // The same row without the English columns: the file is the truth, so the English fields are emptied.
    expect((await importCatalog(repository, `${header}\ns-csv,表格工具,用表格,https://csv.example,,sorting,,false\n`, 'csv')).tools.updated).toBe(1);
    expect(await site.harness.db('tools').where({ slug: 's-csv' }).first('name_en')).toEqual({ name_en: '' });
    await expect(importCatalog(repository, `${header},colour\ns-csv,a,b,https://csv.example,,sorting,,false,red\n`, 'csv')).rejects.toThrow(
      'CSV header must be exactly: slug,name,description,url,icon,category,tags,is_featured (optionally followed by name_en,description_en)',
    );
    const tooLong = await importJson(site.harness.db, { tools: [{ ...sorting.tools[0], slug: 's-long', name_en: 'x'.repeat(201) }] });
    expect(tooLong.tools.rejected).toEqual([{ row: 1, slug: 's-long', reason: { key: 'tooLong', params: { field: 'name_en', max: 200 } } }]);
    await site.harness.db('tools').where({ slug: 's-csv' }).delete();
  });
});

describe('icons, manifest and link preview image', () => {
  it('when /favicon.ico, the web manifest and the og:image are asked, then each is a real file of its type from this origin, linked from every page', async () => {
    const home = (await page('/').set('Host', 'tools.example.org')).text;
    expect(home).toContain('<link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48">');
    expect(home).toContain('<link rel="manifest" href="/manifest.webmanifest">');

    const favicon = await page('/favicon.ico').buffer(true);
    expect(favicon.status).toBe(200);
    expect(favicon.headers['content-type']).toBe('image/x-icon');
    expect(favicon.headers['cache-control']).toBe('public, max-age=86400');
    const ico = favicon.body as Buffer;
    expect([...ico.subarray(0, 6)]).toEqual([0, 0, 1, 0, 3, 0]); // an icon file holding three images
    expect(ico.subarray(ico.readUInt32LE(6 + 12), ico.readUInt32LE(6 + 12) + 4).toString('latin1')).toBe('\x89PNG');

    const manifest = await page('/manifest.webmanifest');
    expect(manifest.status).toBe(200);
    expect(manifest.headers['content-type']).toBe('application/manifest+json; charset=utf-8');
    const parsed = JSON.parse(manifest.text) as { name: string; start_url: string; icons: { src: string; sizes: string; type: string }[] };
    expect(parsed).toMatchObject({ name: '工具导航', start_url: '/' });
    for (const icon of parsed.icons) {
      const file = await page(icon.src).buffer(true);
      expect({ src: icon.src, status: file.status, type: file.headers['content-type'] }).toEqual({ src: icon.src, status: 200, type: icon.type });
    }

    const ogImage = /<meta property="og:image" content="http:\/\/tools\.example\.org(\/assets\/og-image\.[0-9a-f]{12}\.png)">/.exec(home)![1]!;
    const image = await page(ogImage).buffer(true);
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    const png = image.body as Buffer;
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // Width and height from the PNG header, as the page announces them.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
    expect(home).toContain('<meta property="og:image:width" content="1200">');
  });
});
