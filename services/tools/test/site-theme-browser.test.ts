/// <reference lib="dom" />
/**
 * Dark mode and the 导航 pages in Chromium (playwright-core, Debian's /usr/bin/chromium): the system's
 * colour scheme is followed, the visitor's pick persists across pages with no frame painted in the other
 * theme, and axe-core finds no serious or critical issue on the home, category, tool and search pages in
 * either theme. Every request stays on this machine.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { useSampleSiteInChromium } from './support/sample-site';

const LIGHT_BACKGROUND = 'rgb(245, 246, 250)';
const DARK_BACKGROUND = 'rgb(15, 17, 23)';

/**
 * Runs in the page before any of its own scripts: notes the theme and the body's background on the first
 * animation frame in which the body exists, i.e. the first frame that can paint the page's content.
 */
const RECORD_FIRST_FRAME = `(() => {
  const tick = () => {
    if (!document.body) { requestAnimationFrame(tick); return; }
    window.__firstFrame = { theme: document.documentElement.getAttribute('data-theme'), background: getComputedStyle(document.body).backgroundColor };
  };
  requestAnimationFrame(tick);
})()`;

describeWithChromium('dark mode and the 导航 pages in Chromium', () => {
  const site = useSampleSiteInChromium(async (harness) => {
    await harness.db('tools').whereIn('slug', ['figma', 'vscode', 'notion']).update({ visits: 120 });
  });

  async function newContext(colorScheme: 'light' | 'dark', options: { blockScripts?: boolean } = {}): Promise<BrowserContext> {
    const context = await site.newContext({ colorScheme, viewport: { width: 1280, height: 900 }, locale: 'zh-CN' });
    await context.addInitScript(RECORD_FIRST_FRAME);
    await context.route(
      (url) => url.origin !== site.base || (options.blockScripts === true && url.pathname.endsWith('.js')),
      async (route) => {
        if (route.request().resourceType() === 'document') await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>tool site</title>' });
        else await route.abort('connectionrefused');
      },
    );
    return context;
  }

  async function open(context: BrowserContext, path: string): Promise<{ page: Page; problems: string[] }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(site.base + path);
    return { page, problems };
  }

  const firstFrame = (page: Page) =>
    page.waitForFunction(() => (window as unknown as { __firstFrame?: unknown }).__firstFrame).then((handle) => handle.jsonValue() as Promise<{ theme: string | null; background: string }>);
  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const toggle = (page: Page) => page.getByRole('button', { name: '深色模式' });

  async function expectAccessible(page: Page, where: string): Promise<void> {
    expect({ where, violations: await seriousAxeViolations(page) }).toEqual({ where, violations: [] });
  }

  test('when the system prefers dark, then the first frame is already dark and the switch shows as pressed; when it prefers light, light', async () => {
    const { page: dark, problems } = await open(await newContext('dark'), '/');
    expect(await firstFrame(dark)).toEqual({ theme: null, background: DARK_BACKGROUND });
    await expect(toggle(dark).getAttribute('aria-pressed')).resolves.toBe('true');
    expect(problems).toEqual([]);
    const { page: light } = await open(await newContext('light'), '/');
    expect(await firstFrame(light)).toEqual({ theme: null, background: LIGHT_BACKGROUND });
    await expect(toggle(light).getAttribute('aria-pressed')).resolves.toBe('false');
  });

  test('when the visitor switches to dark, then it persists: the next pages are dark from their first frame, even with the system light, and switching back sticks too', async () => {
    const context = await newContext('light');
    const { page, problems } = await open(context, '/');
    await toggle(page).click();
    await expect(toggle(page).getAttribute('aria-pressed')).resolves.toBe('true');
    expect(await background(page)).toBe(DARK_BACKGROUND);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');

    await page.goto(`${site.base}/category/design`);
    expect(await firstFrame(page)).toEqual({ theme: 'dark', background: DARK_BACKGROUND });
    await page.reload();
    expect(await firstFrame(page)).toEqual({ theme: 'dark', background: DARK_BACKGROUND });

    await toggle(page).click();
    expect(await background(page)).toBe(LIGHT_BACKGROUND);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${site.base}/tool/figma`);
    // The visitor's "light" wins over the system's dark.
    expect(await firstFrame(page)).toEqual({ theme: 'light', background: LIGHT_BACKGROUND });
    expect(problems).toEqual([]);
  });

  test('when the site\'s script files do not load, then the saved theme is still applied by the inline script in <head>, which the CSP allows', async () => {
    const { page: blocked, problems } = await open(await newContext('light', { blockScripts: true }), '/robots.txt');
    await blocked.evaluate(() => localStorage.setItem('theme', 'dark'));
    await blocked.goto(`${site.base}/`);
    expect(await firstFrame(blocked)).toEqual({ theme: 'dark', background: DARK_BACKGROUND });
    // Without theme.js the switch stays hidden: it could not work.
    await expect(blocked.locator('[data-theme-toggle]').isHidden()).resolves.toBe(true);
    expect(problems.filter((problem) => /Content Security Policy/.test(problem))).toEqual([]);
  });

  test('when a card is clicked, then the tool\'s site opens in a new tab and the page stays; its details link opens the tool page', async () => {
    const context = await newContext('light');
    const { page } = await open(context, '/');
    const before = Number((await site.harness.db('tools').where({ slug: 'figma' }).first('visits')).visits);
    const card = page.locator('#c-design .tool-card[data-slug="figma"]');
    const [popup] = await Promise.all([context.waitForEvent('page'), card.locator('.tool-card__link').click()]);
    await popup.waitForURL('https://www.figma.com/');
    expect(page.url()).toBe(`${site.base}/`);
    expect(Number((await site.harness.db('tools').where({ slug: 'figma' }).first('visits')).visits)).toBe(before + 1);
    // The new tab cannot reach back into this one (rel="noopener").
    expect(await popup.evaluate(() => window.opener)).toBeNull();
    await card.getByRole('link', { name: 'Figma 的详情' }).click();
    await page.waitForURL(`${site.base}/tool/figma`);
  });

  test('when the side index is used on a wide screen, then it stays in view while the sections scroll, and its links jump to them', async () => {
    const { page } = await open(await newContext('light'), '/');
    const index = page.locator('.side-index');
    await page.locator('.side-index__link[href="#c-productivity"]').click();
    await page.waitForFunction(() => location.hash === '#c-productivity');
    const box = await index.boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(40);
    const section = await page.locator('#c-productivity').boundingBox();
    expect(section!.y).toBeLessThan(100);
  });

  for (const scheme of ['light', 'dark'] as const) {
    test(`when the home, category, tool and search pages are shown in ${scheme}, then axe-core finds no serious or critical issue`, async () => {
      const context = await newContext(scheme);
      for (const path of ['/', '/category/developer?sort=name', '/tool/figma', '/search?q=pdf', '/en/']) {
        const { page, problems } = await open(context, path);
        expect(await background(page)).toBe(scheme === 'dark' ? DARK_BACKGROUND : LIGHT_BACKGROUND);
        await expectAccessible(page, `${scheme} ${path}`);
        expect(problems).toEqual([]);
        await page.close();
      }
    });
  }
});
