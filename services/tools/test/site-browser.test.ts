/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The website in a real browser (Debian's Chromium through playwright-core): browsing, search as you type
 * (and without JavaScript), a counted visit, icon fallbacks, a phone's width, the English switch, and
 * axe-core's accessibility rules. The tools' own sites and icons are answered by the test (no network).
 */
import type { Page } from 'playwright-core';
import request from 'supertest';
import { createIconRepository } from '../src/icons/icon-repository';
import { renderIcon } from '../src/icons/icon-image';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { useSampleSiteInChromium } from './support/sample-site';

/** The one icon stored (for vscode, below), as the icon job would have stored it; every other tool has none. */
const CLOCK_START = Date.parse('2026-11-27T12:00:00Z');
/** Search as you type waits this long after the last keystroke (site.js's DELAY_MS, with a margin) ... */
const PAST_DELAY_MS = 300;
/** ... and a query shown this long without typing is settled: the next gets its own history entry (SETTLE_MS). */
const PAST_SETTLE_MS = 1100;
const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0065a9"/></svg>';

describeWithChromium('website in Chromium', () => {
  const site = useSampleSiteInChromium(async (harness) => {
    const vscode = (await harness.db('tools').where({ slug: 'vscode' }).first('id')).id as number;
    const { png } = await renderIcon(Buffer.from(ICON_SVG));
    await createIconRepository(harness.db).store(vscode, { content: png, contentType: 'image/png', version: 'test1', sourceUrl: 'file', fromFile: true }, new Date(), new Date());
  });

  interface Opened {
    page: Page;
    /** Console errors about the Content-Security-Policy, and uncaught page errors. */
    problems: string[];
    /** External URLs the page asked for. */
    external: string[];
  }

  /** `clock`: the page's timers run only when the test moves its clock (page.clock.runFor), from the first document on. */
  async function open(path: string, options: { javaScript?: boolean; phone?: boolean; clock?: boolean } = {}): Promise<Opened> {
    const context = await site.newContext({
      javaScriptEnabled: options.javaScript ?? true,
      viewport: options.phone ? { width: 390, height: 844 } : { width: 1280, height: 900 },
      isMobile: options.phone ?? false,
      hasTouch: options.phone ?? false,
      locale: 'zh-CN',
    });
    const external: string[] = [];
    // Nothing leaves the machine: a stand-in page for any tool site, failures for the rest.
    await context.route((url) => url.origin !== site.base, async (route) => {
      const url = route.request().url();
      external.push(url);
      if (route.request().resourceType() === 'document') await route.fulfill({ status: 200, contentType: 'text/html', body: `<title>${new URL(url).host}</title>` });
      else await route.abort('connectionrefused');
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    if (options.clock) {
      await page.clock.install({ time: CLOCK_START });
      // Paused a minute ahead: never in the past, however slowly the machine got here (no page timers yet).
      await page.clock.pauseAt(CLOCK_START + 60_000);
    }
    await page.goto(site.base + path);
    return { page, problems, external };
  }

  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  async function visitsOf(slug: string): Promise<number> {
    return Number((await site.harness.db('tools').where({ slug }).first('visits')).visits);
  }

  /** Waits until the element's text matches (the live region is filled a frame after the swap). */
  async function waitForText(page: Page, selector: string, expected: RegExp): Promise<void> {
    await page.waitForFunction(
      ([css, source]) => new RegExp(source).test(document.querySelector(css)?.textContent ?? ''),
      [selector, expected.source] as const,
    );
  }

  const cardSlugs = (page: Page) => page.locator('#main .tool-card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-slug')!));

  test('when a visitor opens the home page, then the category index with counts, each category\'s tools, featured and newest tools render, with no CSP violation and no serious accessibility issue', async () => {
    const { page, problems } = await open('/');
    await expect(page.title()).resolves.toBe('工具导航 - 发现好用的在线工具与软件');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('zh-CN');
    await expect(page.locator('.side-index__link').count()).resolves.toBe(15);
    await expect(page.locator('.side-index__link').first().innerText()).resolves.toMatch(/开发工具\s+21/);
    await expect(page.locator('.category-section').count()).resolves.toBe(15);
    await expect(page.locator('#featured-heading').isVisible()).resolves.toBe(true);
    // Nobody has visited a tool here: no 热门 list, and 最新 lists ten.
    await expect(page.locator('#popular-heading').count()).resolves.toBe(0);
    await expect(page.locator('.ranking__item').count()).resolves.toBe(10);
    // The stylesheet applied (a CSP refusal would leave the page unstyled).
    await expect(page.locator('.search__button').evaluate((button) => getComputedStyle(button).backgroundColor)).resolves.toBe('rgb(79, 70, 229)');
    await expectAccessible(page);
    expect(problems).toEqual([]);
  });

  test('when a visitor types in the search box, then results replace the page as they type, ranked as the API ranks them; clearing the box brings the page back', async () => {
    const { page, problems } = await open('/');
    const box = page.getByRole('searchbox', { name: '搜索工具' });
    await box.pressSequentially('jietu', { delay: 40 });
    await page.waitForURL(`${site.base}/search?q=jietu`);
    await page.locator('#main [data-search-summary]').waitFor();
    const api = await request(site.base).get('/api/index.php?action=search&q=jietu');
    expect(await cardSlugs(page)).toEqual((api.body.data.data as { slug: string }[]).map((tool) => tool.slug));
    await expect(page.title()).resolves.toBe('“jietu”的搜索结果 - 工具导航');
    await waitForText(page, '#live-status', new RegExp(`^“jietu”共找到 ${api.body.data.total} 个工具$`));
    // The box kept its focus and its text while the results changed under it; the language switch follows.
    await expect(box.evaluate((input) => input === document.activeElement)).resolves.toBe(true);
    await expect(page.locator('.lang-switch').getAttribute('href')).resolves.toBe('/en/search?q=jietu');

    await box.fill('');
    await page.waitForURL(`${site.base}/`);
    await page.locator('#categories-heading').waitFor();
    await expect(page.title()).resolves.toBe('工具导航 - 发现好用的在线工具与软件');
    await expect(page.locator('.lang-switch').getAttribute('href')).resolves.toBe('/en/');

    await box.pressSequentially('photshop', { delay: 20 });
    await page.waitForURL(`${site.base}/search?q=photshop`);
    await page.locator('#main .tool-card[data-slug="photoshop"]').waitFor();
    await expectAccessible(page);
    expect(problems).toEqual([]);
  });

  /** The keywords of the search pages the page fetched as the visitor typed, in order. */
  function searchesAsked(page: Page): string[] {
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.resourceType() === 'fetch' && url.pathname.endsWith('/search')) asked.push(url.searchParams.get('q') ?? '');
    });
    return asked;
  }

  /** Moves the page's clock past the typing pause and waits for the search page it then asks for. */
  async function pauseTyping(page: Page, keyword: string): Promise<void> {
    const answered = page.waitForResponse((response) => new URL(response.url()).searchParams.get('q') === keyword);
    await page.clock.runFor(PAST_DELAY_MS);
    await answered;
    await page.waitForURL(`${site.base}/search?q=${encodeURIComponent(keyword)}`);
    await page.locator('#main [data-search-summary]').waitFor();
  }

  const apiSlugs = async (keyword: string) =>
    ((await request(site.base).get(`/api/index.php?action=search&q=${encodeURIComponent(keyword)}`)).body.data.data as { slug: string }[]).map((tool) => tool.slug);

  test('when a visitor types 截图 with a pinyin input method, then nothing is fetched while it composes (no "nothing found" for jie\'tu, the address kept), and one search follows compositionend', async () => {
    const { page, problems } = await open('/', { clock: true });
    const asked = searchesAsked(page);
    // Every text <main> shows, recorded as it changes: a flash would be caught even if replaced at once.
    await page.evaluate(() => {
      const shown: string[] = [];
      (window as unknown as { shown: string[] }).shown = shown;
      new MutationObserver(() => shown.push(document.getElementById('main')?.textContent ?? '')).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await page.getByRole('searchbox', { name: '搜索工具' }).focus();
    const ime = await page.context().newCDPSession(page);
    for (const text of ['j', 'jie', "jie't", "jie'tu"]) {
      await ime.send('Input.imeSetComposition', { text, selectionStart: text.length, selectionEnd: text.length });
      // Long past the typing pause and the settling time: the composition alone must not search.
      await page.clock.runFor(PAST_SETTLE_MS);
      await expect(page.locator('#main [data-search-summary]').count()).resolves.toBe(0);
      expect(page.url()).toBe(`${site.base}/`);
    }
    await ime.send('Input.insertText', { text: '截图' }); // the input method commits: compositionend
    await pauseTyping(page, '截图');
    expect(asked).toEqual(['截图']);
    const shown = await page.evaluate(() => (window as unknown as { shown: string[] }).shown);
    expect(shown.filter((text) => text.includes('没有找到'))).toEqual([]);
    expect(await cardSlugs(page)).toEqual(await apiSlugs('截图'));
    await expect(page.title()).resolves.toBe('“截图”的搜索结果 - 工具导航');
    expect(problems).toEqual([]);
  });

  test('when a visitor searches, pauses, and searches on, then each settled query is one history entry; Back walks them, then returns to the page they came from, and Forward comes back', async () => {
    const { page, problems } = await open('/category/design', { clock: true });
    await page.locator('.site-header a[href="/"]').first().click();
    await page.waitForURL(`${site.base}/`);
    const before = await page.evaluate(() => history.length);
    const asked = searchesAsked(page);
    const box = page.getByRole('searchbox', { name: '搜索工具' });
    await box.focus();
    await page.keyboard.insertText('截图');
    await pauseTyping(page, '截图');
    await expect(page.evaluate(() => history.length)).resolves.toBe(before + 1);

    await page.clock.runFor(PAST_SETTLE_MS); // 截图 stays on screen: settled
    await page.keyboard.insertText('软');
    await pauseTyping(page, '截图软');
    await page.keyboard.insertText('件'); // typing on at once: the same entry, updated
    await pauseTyping(page, '截图软件');
    await expect(page.evaluate(() => history.length)).resolves.toBe(before + 2);
    expect(asked).toEqual(['截图', '截图软', '截图软件']);

    await page.goBack();
    await page.waitForURL(`${site.base}/search?q=${encodeURIComponent('截图')}`);
    await expect(box.inputValue()).resolves.toBe('截图');
    expect(await cardSlugs(page)).toEqual(await apiSlugs('截图'));
    await expect(page.title()).resolves.toBe('“截图”的搜索结果 - 工具导航');

    await page.goBack();
    await page.waitForURL(`${site.base}/`);
    await page.locator('#categories-heading').waitFor();
    await expect(box.inputValue()).resolves.toBe('');
    await expect(page.title()).resolves.toBe('工具导航 - 发现好用的在线工具与软件');

    await page.goForward();
    await page.waitForURL(`${site.base}/search?q=${encodeURIComponent('截图')}`);
    await expect(box.inputValue()).resolves.toBe('截图');
    await page.goBack();
    await page.waitForURL(`${site.base}/`);
    await page.goBack();
    await page.waitForURL(`${site.base}/category/design`);
    // Back and Forward showed what was kept: nothing was fetched again.
    expect(asked).toEqual(['截图', '截图软', '截图软件']);
    expect(problems).toEqual([]);
  });

  test('when an older search is still on its way as the visitor types on, then it is cancelled and the newer results stay', async () => {
    const { page, problems } = await open('/', { clock: true });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first search's answer is held back until the second has been shown.
    await page.route((url) => url.pathname === '/search' && url.searchParams.get('q') === 'pdf', async (route) => {
      await held;
      await route.continue().catch(() => undefined);
    });
    const cancelled = page.waitForEvent('requestfailed', (failed) => new URL(failed.url()).searchParams.get('q') === 'pdf');
    await page.getByRole('searchbox', { name: '搜索工具' }).focus();
    await page.keyboard.insertText('pdf');
    const asked = page.waitForRequest((sent) => new URL(sent.url()).searchParams.get('q') === 'pdf');
    await page.clock.runFor(PAST_DELAY_MS);
    await asked;
    await page.keyboard.insertText('合并');
    await pauseTyping(page, 'pdf合并');
    expect((await cancelled).failure()?.errorText).toBe('net::ERR_ABORTED');
    release();
    expect(await cardSlugs(page)).toEqual(await apiSlugs('pdf合并'));
    await expect(page.locator('#main [data-search-summary]').innerText()).resolves.toMatch(/^“pdf合并”共找到 \d+ 个工具$/);
    expect(problems).toEqual([]);
  });

  test('when JavaScript is off, then the search box is an ordinary form and the results page works the same', async () => {
    const { page } = await open('/tool/vscode', { javaScript: false });
    await page.getByRole('searchbox', { name: '搜索工具' }).fill('截图');
    await page.getByRole('searchbox', { name: '搜索工具' }).press('Enter');
    await page.waitForURL(`${site.base}/search?q=%E6%88%AA%E5%9B%BE`);
    const api = await request(site.base).get(`/api/index.php?action=search&q=${encodeURIComponent('截图')}`);
    expect(await cardSlugs(page)).toEqual((api.body.data.data as { slug: string }[]).map((tool) => tool.slug));
    await expect(page.locator('.search-summary').innerText()).resolves.toBe(`“截图”共找到 ${api.body.data.total} 个工具`);
  });

  test('when a visitor opens a tool and clicks its link out, then the tool site opens in a new tab and exactly one visit is counted', async () => {
    const before = await visitsOf('figma');
    const { page, external } = await open('/category/design');
    await page.getByRole('link', { name: 'Figma 的详情' }).click();
    await page.waitForURL(`${site.base}/tool/figma`);
    await expect(page.locator('h1').innerText()).resolves.toContain('Figma');
    await expect(page.locator('.tool__description').isVisible()).resolves.toBe(true);
    await expect(page.locator('.tags .tag').count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('#related-heading').isVisible()).resolves.toBe(true);
    expect(await visitsOf('figma')).toBe(before);
    await expectAccessible(page);

    const [tab] = await Promise.all([page.context().waitForEvent('page'), page.getByRole('link', { name: /访问网站/ }).click()]);
    await tab.waitForURL('https://www.figma.com/');
    expect(external).toContain('https://www.figma.com/');
    expect(await visitsOf('figma')).toBe(before + 1);
  });

  test('when a tool has a stored icon it is loaded from this origin over the letter; a tool without one shows the letter and no image; icons load lazily', async () => {
    const { page } = await open('/tool/vscode');
    const own = page.locator('.tool__head .tool-icon');
    await page.waitForFunction(() => document.querySelector('.tool__head .tool-icon')!.classList.contains('tool-icon--loaded'));
    await expect(own.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth > 0)).resolves.toBe(true);
    await expect(own.locator('img').getAttribute('loading')).resolves.toBe('lazy');

    await expect(own.locator('img').getAttribute('src')).resolves.toBe('/icons/vscode?v=test1');

    // Related tools have no stored icon: no <img> at all (so no broken-image glyph), the letter avatar alone.
    const related = page.locator('#main .tool-grid .tool-icon');
    await expect(related.locator('img').count()).resolves.toBe(0);
    const letters = await related.evaluateAll((icons) => icons.map((icon) => [icon.getAttribute('data-letter'), getComputedStyle(icon, '::before').content]));
    expect(letters.length).toBeGreaterThan(0);
    for (const [letter, shown] of letters) expect(shown).toBe(`"${letter}"`);
  });

  test('when JavaScript is off, then a stored icon still shows and every other tool shows its letter, never a broken image', async () => {
    const { page } = await open('/tool/vscode', { javaScript: false });
    const own = page.locator('.tool__head .tool-icon img');
    await own.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => (document.querySelector('.tool__head .tool-icon img') as HTMLImageElement).complete);
    await expect(own.evaluate((img: HTMLImageElement) => img.naturalWidth)).resolves.toBe(128);
    const letters = await page.locator('#main .tool-grid .tool-icon').evaluateAll((icons) => icons.map((icon) => [icon.querySelector('img'), icon.getAttribute('data-letter'), getComputedStyle(icon, '::before').content]));
    expect(letters.length).toBeGreaterThan(0);
    for (const [img, letter, shown] of letters) expect([img, shown]).toEqual([null, `"${letter}"`]);
  });

  test('when the page is read on a phone, then nothing is wider than the screen and the search box spans it', async () => {
    for (const path of ['/', '/category/developer', '/tool/vscode', '/search?q=pdf', '/en/tool/obsidian']) {
      const { page } = await open(path, { phone: true });
      const widths = await page.evaluate(() => ({ document: document.documentElement.scrollWidth, viewport: window.innerWidth }));
      expect({ path, ...widths }).toEqual({ path, document: widths.viewport, viewport: 390 });
      const box = await page.locator('form.search').boundingBox();
      expect(box!.width).toBeGreaterThan(330);
    }
  });

  test('when the English switch is clicked, then the same page comes in English, with its own address, and switches back', async () => {
    const { page, problems } = await open('/category/developer');
    await page.getByRole('link', { name: 'Switch to English' }).click();
    await page.waitForURL(`${site.base}/en/category/developer`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(page.locator('.page-head__meta').innerText()).resolves.toBe('21 tools');
    // No English fields in the sample directory: the English page names the Chinese one canonical, and claims no alternate.
    await expect(page.locator('link[rel="canonical"]').getAttribute('href')).resolves.toBe(`${site.base}/category/developer`);
    await expect(page.locator('link[rel="alternate"]').count()).resolves.toBe(0);
    await expectAccessible(page);
    await page.getByRole('searchbox', { name: 'Search tools' }).pressSequentially('pdf', { delay: 30 });
    await page.waitForURL(`${site.base}/en/search?q=pdf`);
    await waitForText(page, '#live-status', /^\d+ tools for “pdf”$/);
    await page.getByRole('link', { name: '切换到中文' }).click();
    await page.waitForURL(`${site.base}/search?q=pdf`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('zh-CN');
    expect(problems).toEqual([]);
  });

  test('when the 404 page and an empty search are shown, then they pass the accessibility rules too', async () => {
    for (const path of ['/tool/does-not-exist', '/search', '/en/search?q=zzzzqqqq']) {
      const { page, problems } = await open(path);
      await expectAccessible(page);
      expect(problems).toEqual([]);
    }
  });
});
