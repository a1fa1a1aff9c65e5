/**
 * The website (src/site/): status, headers, escaping, links, caching and limits of the server-rendered
 * pages, through the app as nginx reaches it. The browser's view is in site-browser.test.ts.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import request from 'supertest';
import { sampleDatasetPath } from '../src/demo';
import { CATEGORY_PAGE_SIZE, HOME_TOOLS_PER_CATEGORY, SEARCH_PAGE_SIZE } from '../src/site/site-service';
import { THEME_BOOT_HASH, THEME_BOOT_SCRIPT } from '../src/site/theme';
import { importJson } from './support/harness';
import { useSampleSite } from './support/sample-site';

const site = useSampleSite();

const sample = JSON.parse(fs.readFileSync(sampleDatasetPath(), 'utf8')) as {
  categories: { slug: string; name: string }[];
  tools: { slug: string; name: string; category: string; is_featured?: boolean }[];
};

const page = (path: string) => request(site.app).get(path);

/** The slugs of the tool cards on a page, in order. */
const cardSlugs = (body: string) => [...body.matchAll(/<li class="tool-card" data-slug="([^"]+)"/g)].map((match) => match[1]!);
const attribute = (body: string, pattern: RegExp) => pattern.exec(body)?.[1];

async function visitsOf(slug: string): Promise<number> {
  return Number((await site.harness.db('tools').where({ slug }).first('visits')).visits);
}

function expectSecureHtml(res: request.Response) {
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  const csp = res.headers['content-security-policy'] as string;
  expect(csp).toContain(`script-src 'self' ${THEME_BOOT_HASH}`);
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  // One inline script, the theme's, whose hash the CSP names; no inline style or event handler attribute.
  const inline = [...res.text.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
  expect(inline).toEqual([THEME_BOOT_SCRIPT]);
  expect(csp).toContain(`'sha256-${createHash('sha256').update(inline[0]!).digest('base64')}'`);
  expect(res.text).not.toMatch(/<style[\s>]/);
  expect(res.text).not.toMatch(/\sstyle="/);
  expect(res.text).not.toMatch(/\son[a-z]+="/);
}

describe('pages', () => {
  it('when the home page is asked without any key, then it is Chinese HTML listing every category\'s tools with a side index, featured and most visited tools, and a search box', async () => {
    await site.harness.db('tools').where({ slug: 'figma' }).update({ visits: 900 });
    const res = await page('/');
    expect(res.status).toBe(200);
    expectSecureHtml(res);
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.headers['content-language']).toBe('zh-CN');
    expect(res.text).toContain('<html lang="zh-CN">');
    expect(res.text).toContain('<title>工具导航 - 发现好用的在线工具与软件</title>');
    for (const category of sample.categories) {
      const count = sample.tools.filter((tool) => tool.category === category.slug).length;
      // The side index links each category's section on the page, with its count; the section links the category page.
      expect(res.text).toMatch(new RegExp(`<a class="side-index__link" href="#c-${category.slug}">.*?${category.name}.*?>${count}<`));
      const section = res.text.slice(res.text.indexOf(`<section class="section category-section" id="c-${category.slug}"`));
      expect(section).toMatch(new RegExp(`^[^]*?<a href="/category/${category.slug}">${category.name}</a>`));
      const shown = cardSlugs(section.slice(0, section.indexOf('</section>')));
      expect(shown.length).toBe(Math.min(count, HOME_TOOLS_PER_CATEGORY));
      expect(shown.every((slug) => sample.tools.find((tool) => tool.slug === slug)?.category === category.slug)).toBe(true);
    }
    expect(res.text).toContain(`收录 ${sample.tools.length} 个工具，${sample.categories.length} 个分类`);
    expect(res.text).toMatch(/<form class="search search--hero" role="search" action="\/search" method="get" data-live-search>/);
    expect(res.text).toContain('<h2 class="section__title" id="featured-heading">精选推荐</h2>');
    const featured = sample.tools.filter((tool) => tool.is_featured).map((tool) => tool.slug);
    const featuredSection = res.text.slice(res.text.indexOf('featured-heading'), res.text.indexOf('category-section'));
    expect(cardSlugs(featuredSection).length).toBeGreaterThan(0);
    expect(cardSlugs(featuredSection).every((slug) => featured.includes(slug))).toBe(true);
    // 热门 lists visited tools only: here figma alone.
    const popular = res.text.slice(res.text.indexOf('popular-heading'), res.text.indexOf('latest-heading'));
    expect([...popular.matchAll(/<li class="ranking__item" data-slug="([^"]+)"/g)].map((match) => match[1])).toEqual(['figma']);
    expect(popular).toContain('900 次访问');
    await site.harness.db('tools').where({ slug: 'figma' }).update({ visits: 0 });
  });

  it('when a page is asked, then it names its canonical URL and its Open Graph card with an image from this origin; without English content no language alternates', async () => {
    const res = await page('/tool/vscode').set('Host', 'tools.example.org');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<link rel="canonical" href="http://tools.example.org/tool/vscode">');
    // The sample directory has no English fields: the page claims no English version (site-navigation.test.ts adds one).
    expect(res.text).not.toContain('hreflang="en"');
    expect(res.text).not.toContain('og:locale:alternate');
    expect(res.text).toContain('<meta property="og:url" content="http://tools.example.org/tool/vscode">');
    expect(res.text).toContain('<meta property="og:title" content="Visual Studio Code - 开发工具 - 工具导航">');
    expect(res.text).toMatch(/<meta property="og:description" content="[^"]+">/);
    expect(res.text).toContain('<meta property="og:locale" content="zh_CN">');
    expect(res.text).toMatch(/<meta property="og:image" content="http:\/\/tools\.example\.org\/assets\/og-image\.[0-9a-f]{12}\.png">/);
    expect(res.text).toContain('<meta name="twitter:card" content="summary_large_image">');
  });

  it('when PUBLIC_BASE_URL is set, then absolute URLs use it whatever Host or X-Forwarded-Host the request carries', async () => {
    const configured = site.harness.app({ config: { PUBLIC_BASE_URL: 'https://tools.example.com' } });
    const res = await request(configured).get('/category/developer').set('Host', 'evil.example').set('X-Forwarded-Host', 'evil.example');
    expect(res.text).toContain('<link rel="canonical" href="https://tools.example.com/category/developer">');
    expect(res.text).not.toContain('evil.example');
    // Without it the Host header is used, never X-Forwarded-Host (nginx passes the client's on).
    const derived = await page('/category/developer').set('Host', 'tools.example.org').set('X-Forwarded-Host', 'evil.example');
    expect(derived.text).toContain('href="http://tools.example.org/category/developer"');
    expect(derived.text).not.toContain('evil.example');
    const bogus = await page('/').set('Host', 'a"b<c');
    expect(bogus.text).toContain('<link rel="canonical" href="http://localhost/">');
  });

  it('when the English switch is followed, then the same page is in English at /en/, linked both ways', async () => {
    const zh = await page('/category/developer');
    const switchHref = attribute(zh.text, /<a class="lang-switch" data-switch-lang href="([^"]+)"/);
    expect(switchHref).toBe('/en/category/developer');
    const en = await page(switchHref!);
    expect(en.status).toBe(200);
    expectSecureHtml(en);
    expect(en.headers['content-language']).toBe('en');
    expect(en.text).toContain('<html lang="en">');
    expect(en.text).toContain('21 tools');
    expect(en.text).toContain('All categories');
    expect(attribute(en.text, /<a class="lang-switch" data-switch-lang href="([^"]+)"/)).toBe('/category/developer');
    expect(en.text).toMatch(/action="\/en\/search"/);
    expect(cardSlugs(en.text)).toEqual(cardSlugs(zh.text));
    expect(en.text).toContain('href="/en/tool/');

    const bare = await page('/en');
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe('/en/');
    const home = await page('/en/');
    expect(home.text).toContain('<title>Tool Directory - find useful online tools and software</title>');
  });

  it('when a category is asked by slug, then its tools are paged with prev/next links; by id it redirects to the slug', async () => {
    const developer = sample.tools.filter((tool) => tool.category === 'developer');
    expect(developer.length).toBeLessThan(CATEGORY_PAGE_SIZE * 2);
    const first = await page('/category/developer');
    expect(first.status).toBe(200);
    expect(first.text).toContain('<h1 class="page-head__title">开发工具</h1>');
    const firstSlugs = cardSlugs(first.text);
    expect(firstSlugs.length).toBe(Math.min(developer.length, CATEGORY_PAGE_SIZE));
    expect(firstSlugs.every((slug) => developer.some((tool) => tool.slug === slug))).toBe(true);
    expect(first.text).toContain('aria-current="page"');

    const id = (await site.harness.db('categories').where({ slug: 'developer' }).first('id')).id as number;
    const byId = await page(`/category/${id}?page=1`);
    expect(byId.status).toBe(301);
    expect(byId.headers.location).toBe('/category/developer');
    expect((await page(`/en/category/${id}`)).headers.location).toBe('/en/category/developer');
  });

  it('when a category holds more than a page of tools, then the pages link each other and each names itself canonical', async () => {
    const count = CATEGORY_PAGE_SIZE + 6;
    const tools = Array.from({ length: count }, (_, index) => ({
      slug: `paging-${String(index).padStart(2, '0')}`,
      name: `Paging tool ${index}`,
      url: `https://paging.example/${index}`,
      category: 'paging',
    }));
    expect((await importJson(site.harness.db, { categories: [{ slug: 'paging', name: '分页', sort_order: 50 }], tools })).tools.rejected).toEqual([]);
    try {
      const first = await page('/category/paging').set('Host', 'tools.example.org');
      expect(cardSlugs(first.text)).toEqual(tools.slice(0, CATEGORY_PAGE_SIZE).map((tool) => tool.slug));
      expect(first.text).toContain('href="/category/paging?page=2" rel="next"');
      expect(first.text).toContain('第 1 / 2 页');
      const second = await page('/category/paging?page=2').set('Host', 'tools.example.org');
      expect(cardSlugs(second.text)).toEqual(tools.slice(CATEGORY_PAGE_SIZE).map((tool) => tool.slug));
      expect(second.text).toContain('href="/category/paging" rel="prev"');
      expect(second.text).toContain('<link rel="canonical" href="http://tools.example.org/category/paging?page=2">');
      expect(second.text).toContain('<title>分页（第 2 页） - 工具导航</title>');
      expect((await page('/category/paging?page=3')).status).toBe(404);
    } finally {
      await site.harness.db('tools').where('slug', 'like', 'paging-%').delete();
      await site.harness.db('categories').where({ slug: 'paging' }).delete();
    }
  });

  it('when a category page does not exist, then the answer is the 404 page; a malformed page number is a 400 page', async () => {
    // A path part that is not UTF-8 once percent-decoded names no page either.
    const undecodable = ['/tool/%ff', '/category/%ff', '/en/tool/%ff', '/en/category/%C3%28', '/go/%ff', '/assets/%ff'];
    for (const path of ['/category/nope', '/category/999999', '/category/developer?page=99', '/tool/nope', '/nothing/here', '/en/nothing', ...undecodable]) {
      const res = await page(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expectSecureHtml(res);
      expect(res.text).toContain('<meta name="robots" content="noindex, follow">');
      expect(res.text).toContain(path.startsWith('/en/') ? 'Page not found' : '页面不存在');
    }
    for (const path of ['/category/developer?page=0', '/category/developer?page=x', '/category/developer?sort=visits', '/search?q=a&page=-1', '/search?q=a&q=b']) {
      const res = await page(path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const post = await request(site.app).post('/');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('when an API path is unknown, then it keeps the JSON envelope, not a web page', async () => {
    const res = await page('/api/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 404, message: '资源不存在' } });
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it('when a tool page is asked, then it shows the description, tags, a counted nofollow link out and related tools of its category; by id it redirects', async () => {
    const res = await page('/tool/vscode');
    expect(res.status).toBe(200);
    expectSecureHtml(res);
    expect(res.text).toContain('<h1 class="tool__name">Visual Studio Code');
    expect(res.text).toContain('微软出品的免费开源代码编辑器');
    expect(res.text).toContain('<a class="tag" href="/tag/%E7%BC%96%E8%BE%91%E5%99%A8" aria-label="标签“编辑器”的全部工具">#编辑器</a>');
    expect(res.text).toMatch(/<a class="button tool__visit" href="\/go\/vscode" target="_blank" rel="nofollow noopener"/);
    expect(res.text).toContain('code.visualstudio.com');
    // An imported icon URL is never linked: only an icon stored by the icon job is (icons.test.ts), so the letter stays.
    expect(res.text).toMatch(/<span class="tool-icon tool-icon--large hue-\d" data-letter="V" aria-hidden="true"><\/span>/);
    const related = cardSlugs(res.text.slice(res.text.indexOf('related-heading')));
    expect(related.length).toBeGreaterThan(0);
    const developer = new Set(sample.tools.filter((tool) => tool.category === 'developer').map((tool) => tool.slug));
    expect(related.every((slug) => developer.has(slug) && slug !== 'vscode')).toBe(true);
    expect(await visitsOf('vscode')).toBe(0);

    const id = (await site.harness.db('tools').where({ slug: 'vscode' }).first('id')).id as number;
    const byId = await page(`/tool/${id}`);
    expect(byId.status).toBe(301);
    expect(byId.headers.location).toBe('/tool/vscode');
  });

  it('when searching on the site, then results and their order are the API search\'s (Chinese, pinyin, typos), paged', async () => {
    for (const keyword of ['截图', 'jietu', 'jt', 'photshop', 'pdf 转换', 'tupianyasuo']) {
      const api = await request(site.app).get(`/api/index.php?action=search&limit=${SEARCH_PAGE_SIZE}&q=${encodeURIComponent(keyword)}`);
      const expected = (api.body.data.data as { slug: string }[]).map((tool) => tool.slug);
      expect(expected.length).toBeGreaterThan(0);
      const res = await page(`/search?q=${encodeURIComponent(keyword)}`);
      expect(res.status).toBe(200);
      expectSecureHtml(res);
      expect([keyword, cardSlugs(res.text)]).toEqual([keyword, expected]);
      expect(res.text).toContain(`共找到 ${api.body.data.total} 个工具`);
      expect(res.text).toContain('<meta name="robots" content="noindex, follow">');
      expect(res.text).toContain(`value="${keyword}"`);
    }
    const api = await request(site.app).get(`/api/index.php?action=search&q=a&page=2&limit=${SEARCH_PAGE_SIZE}`);
    expect(api.body.data.total_pages).toBeGreaterThan(2);
    const second = await page('/search?q=a&page=2');
    expect(cardSlugs(second.text)).toEqual((api.body.data.data as { slug: string }[]).map((tool) => tool.slug));
    expect(second.text).toContain('href="/search?q=a" rel="prev"');
    expect(second.text).toContain('href="/search?q=a&amp;page=3" rel="next"');
    expect((await page('/search?q=a&page=999')).status).toBe(404);
  });

  it('when the search box is empty, too long or unsearchable, then the page prompts or explains, in the page language', async () => {
    const empty = await page('/search?q=%20%20');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('输入工具名称、用途、标签或拼音开始搜索。');
    expect(cardSlugs(empty.text)).toEqual([]);
    const long = await page(`/en/search?q=${'x'.repeat(101)}`);
    expect(long.status).toBe(400);
    expect(long.text).toContain('The search text is too long: at most 100 characters.');
    const control = await page('/search?q=a%00b');
    expect(control.status).toBe(400);
    expect(control.text).toContain('搜索词包含无法识别的字符。');
    const none = await page('/search?q=zzzzqqqqxxxx');
    expect(none.text).toContain('没有找到与“zzzzqqqqxxxx”相关的工具');
  });
});

describe('escaping and links from imports', () => {
  const hostile = {
    categories: [{ slug: 'hostile', name: '<b>分类</b>', description: '"><script>alert(1)</script>', icon: '<img src=x>', sort_order: 99 }],
    tools: [
      {
        slug: 'xss-tool',
        name: '<script>alert("name")</script>',
        description: '"><img src=x onerror=alert(1)> & <iframe>',
        url: 'https://example.com/?a="><script>alert(2)</script>&b=<x>',
        icon: 'https://example.com/i.png?"onerror="alert(3)',
        category: 'hostile',
        tags: ['<svg onload=alert(4)>', '"quoted"'],
        is_featured: true,
      },
    ],
  };

  afterEach(async () => {
    await site.harness.db('tools').whereIn('slug', ['xss-tool', 'js-link']).delete();
    await site.harness.db('categories').where({ slug: 'hostile' }).delete();
  });

  it('when names, descriptions, tags and URLs carry markup, then every page shows them as text', async () => {
    expect((await importJson(site.harness.db, hostile)).tools.rejected).toEqual([]);
    for (const path of ['/', '/tool/xss-tool', '/category/hostile', '/search?q=alert', `/search?q=${encodeURIComponent('<script>')}`, '/en/tool/xss-tool']) {
      const res = await page(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expectSecureHtml(res);
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).not.toContain('<img src=x');
      expect(res.text).not.toContain('<svg onload');
      expect(res.text).not.toContain('<iframe>');
      expect(res.text).not.toContain('<b>分类');
    }
    const tool = (await page('/tool/xss-tool')).text;
    expect(tool).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
    expect(tool).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &lt;iframe&gt;');
    expect(tool).toContain('#&lt;svg onload=alert(4)&gt;');
    expect(tool).not.toContain('example.com/i.png');
    const go = await page('/go/xss-tool');
    expect(go.status).toBe(302);
    expect(go.headers.location).toBe('https://example.com/?a=%22%3E%3Cscript%3Ealert(2)%3C/script%3E&b=%3Cx%3E');
  });

  it('when a stored URL is not http(s), then no link or icon is rendered and /go/ refuses it without counting', async () => {
    // The importer refuses such URLs; a row written some other way must still never become a link.
    const categoryId = (await site.harness.db('categories').where({ slug: 'developer' }).first('id')).id as number;
    await site.harness.db('tools').insert({ slug: 'js-link', name: 'JS link', description: 'd', url: 'javascript:alert(1)', icon: 'javascript:alert(2)', category_id: categoryId });
    const res = await page('/tool/js-link');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('javascript:');
    expect(res.text).not.toContain('tool__visit');
    expect(res.text).toMatch(/<span class="tool-icon tool-icon--large hue-\d" data-letter="J" aria-hidden="true"><\/span>/);
    expect((await page('/go/js-link')).status).toBe(404);
    expect(await visitsOf('js-link')).toBe(0);
  });
});

describe('the counted link out (/go/<slug>)', () => {
  it('when a visitor clicks it, then one visit is counted and the browser is sent to the tool, with nothing allowed to cache the redirect', async () => {
    const before = await visitsOf('figma');
    const res = await page('/go/figma').set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0 Safari/537.36');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('https://www.figma.com/');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(await visitsOf('figma')).toBe(before + 1);
  });

  it('when 20 clicks arrive at once, then exactly 20 visits are counted', async () => {
    const before = await visitsOf('notion');
    const answers = await Promise.all(Array.from({ length: 20 }, () => page('/go/notion')));
    expect(answers.map((res) => res.status)).toEqual(Array(20).fill(302));
    expect(await visitsOf('notion')).toBe(before + 20);
  });

  it('when a crawler, a link previewer, a prefetch or a HEAD follows it, then it is redirected but nothing is counted', async () => {
    const before = await visitsOf('github');
    const automated = [
      page('/go/github').set('User-Agent', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
      page('/go/github').set('User-Agent', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'),
      page('/go/github').set('User-Agent', 'TelegramBot (like TwitterBot)'),
      page('/go/github').set('User-Agent', 'facebookexternalhit/1.1'),
      page('/go/github').set('Sec-Purpose', 'prefetch'),
      page('/go/github').set('Purpose', 'prefetch'),
      request(site.app).head('/go/github'),
    ];
    for (const res of await Promise.all(automated)) expect(res.status).toBe(302);
    expect(await visitsOf('github')).toBe(before);
    expect((await page('/go/nope')).status).toBe(404);
  });

  it('when robots.txt is read, then /go/ and the API are excluded and the sitemap is named', async () => {
    const res = await page('/robots.txt').set('Host', 'tools.example.org');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('User-agent: *\nDisallow: /go/\nDisallow: /api/\nAllow: /\n\nSitemap: http://tools.example.org/sitemap.xml\n');
  });
});

describe('sitemap', () => {
  it('when sitemap.xml is read, then it indexes a pages file and tool files that list every tool, in English too only where the page is', async () => {
    const index = await page('/sitemap.xml').set('Host', 'tools.example.org');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('application/xml; charset=utf-8');
    const files = [...index.text.matchAll(/<loc>http:\/\/tools\.example\.org(\/[^<]+)<\/loc>/g)].map((match) => match[1]!);
    expect(files).toEqual(['/sitemap-pages.xml', '/sitemap-tools-1.xml']);

    // The sample directory has no English fields: Chinese addresses only, no alternates.
    const pages = (await page('/sitemap-pages.xml').set('Host', 'tools.example.org')).text;
    expect(pages).toContain('<loc>http://tools.example.org/</loc>');
    expect(pages).not.toContain('/en/');
    for (const category of sample.categories) expect(pages).toContain(`<loc>http://tools.example.org/category/${category.slug}</loc>`);

    const tools = (await page('/sitemap-tools-1.xml').set('Host', 'tools.example.org')).text;
    const locations = [...tools.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
    expect(locations.length).toBe(sample.tools.length);
    expect(locations).toContain('http://tools.example.org/tool/vscode');
    expect(tools).toMatch(/<url><loc>http:\/\/tools\.example\.org\/tool\/vscode<\/loc><lastmod>\d{4}-\d\d-\d\dT[^<]+<\/lastmod><\/url>/);
    expect((await page('/sitemap-tools-2.xml')).status).toBe(404);
  });
});

describe('static files', () => {
  it('when a page links its CSS, JS and icon, then each is served under a content-hashed name with a year of caching; another name is a 404', async () => {
    const home = (await page('/')).text;
    const links = [
      attribute(home, /<link rel="stylesheet" href="(\/assets\/site\.[0-9a-f]{12}\.css)">/),
      attribute(home, /<script src="(\/assets\/site\.[0-9a-f]{12}\.js)" defer><\/script>/),
      attribute(home, /<link rel="icon" type="image\/svg\+xml" href="(\/assets\/icon\.[0-9a-f]{12}\.svg)">/),
    ];
    const types = ['text/css; charset=utf-8', 'text/javascript; charset=utf-8', 'image/svg+xml'];
    for (const [index, link] of links.entries()) {
      expect(link).toBeDefined();
      const res = await page(link!);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(types[index]);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await page('/assets/site.000000000000.css')).status).toBe(404);
    expect((await page('/assets/site.css')).status).toBe(404);
  });
});

describe('cache', () => {
  it('when pages are asked again, then they are rendered from memory; a catalog change shows within a second, visit counts within the TTL', async () => {
    let clock = 1_000_000;
    const { app: cached, services } = site.harness.appWithServices({ clock: () => new Date(clock), config: { SITE_CACHE_TTL_MS: '60000', ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000' } });
    const paths = ['/', '/en/', '/category/developer', '/tool/vscode', '/search?q=jietu', '/sitemap.xml', '/sitemap-tools-1.xml'];
    for (const path of paths) expect((await request(cached).get(path)).status).toBe(200);

    const queries: string[] = [];
    const onQuery = (query: { sql: string }) => queries.push(query.sql);
    site.harness.db.on('query', onQuery);
    try {
      for (const path of paths) expect((await request(cached).get(path)).status).toBe(200);
      expect(queries).toEqual([]);

      // A visit changes no catalog revision: the page keeps its count until the TTL passes.
      await site.harness.db('tools').where({ slug: 'vscode' }).update({ visits: 4242 });
      queries.length = 0;
      clock += 2000;
      expect((await request(cached).get('/tool/vscode')).text).not.toContain('4,242 次访问');
      expect(queries).toEqual([expect.stringMatching(/catalog_revision/)]);
      clock += 60000;
      expect((await request(cached).get('/tool/vscode')).text).toContain('4,242 次访问');

      // An import moves the catalog revision: the change shows on pages and in search after the next check.
      const vscode = (sample.tools as Record<string, unknown>[]).find((tool) => tool.slug === 'vscode')!;
      expect((await importJson(site.harness.db, { tools: [{ ...vscode, name: 'VS Code Renamed' }] })).tools.updated).toBe(1);
      expect((await request(cached).get('/tool/vscode')).text).not.toContain('VS Code Renamed');
      clock += 1000;
      expect((await request(cached).get('/tool/vscode')).text).toContain('VS Code Renamed');
      // Search answers from the previous index until this replica's rebuild is done, and that answer is
      // not kept in the page cache past the rebuild.
      expect(cardSlugs((await request(cached).get('/search?q=renamed')).text)).toEqual([]);
      await services.search.refresh();
      expect(cardSlugs((await request(cached).get('/search?q=renamed')).text)).toEqual(['vscode']);

      // So does a change written by any other hand (the revision is kept by triggers, not by the importer).
      await site.harness.db('tools').where({ slug: 'vscode' }).update({ description: '手工修改的描述' });
      clock += 1000;
      expect((await request(cached).get('/tool/vscode')).text).toContain('手工修改的描述');
    } finally {
      site.harness.db.off('query', onQuery);
      const vscode = (sample.tools as Record<string, unknown>[]).find((tool) => tool.slug === 'vscode')!;
      await importJson(site.harness.db, { tools: [vscode] });
      await site.harness.db('tools').where({ slug: 'vscode' }).update({ visits: 0 });
    }
  });
});

describe('rate limit', () => {
  it('when an address goes over the anonymous hourly limit, then pages answer 429 with Retry-After; static files are not counted', async () => {
    const limited = site.harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '3' } });
    const home = await request(limited).get('/');
    const css = attribute(home.text, /<link rel="stylesheet" href="([^"]+)">/)!;
    // Pages and the API's anonymous search share the address's budget, as one visitor's requests.
    expect((await request(limited).get('/api/index.php?action=search&q=png')).status).toBe(200);
    expect((await request(limited).get('/tool/vscode')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await request(limited).get(css)).status).toBe(200);
    expect((await request(limited).get('/robots.txt')).status).toBe(200);
    const refused = await request(limited).get('/en/category/developer');
    expect(refused.status).toBe(429);
    expectSecureHtml(refused);
    expect(refused.text).toContain('Too many requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers['x-ratelimit-remaining']).toBeUndefined();
    const visitsBefore = await visitsOf('vscode');
    expect((await request(limited).get('/go/vscode')).status).toBe(429);
    expect(await visitsOf('vscode')).toBe(visitsBefore);
  });
});
