/**
 * Dark mode: the app follows the system's colour scheme until the toggle chooses one, which this
 * browser keeps; a reload applies the kept choice before the app's script runs (no flash of the
 * other theme), and axe-core finds no contrast problem in either theme.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { screenshotDir, watchForProblems } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'dora-password-1';
const LIGHT_BG = 'rgb(244, 246, 251)';
const DARK_BG = 'rgb(11, 17, 32)';

describeWithChromium('dark mode in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'theme-shots-'));
  let shots: string;

  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const toggle = () => page.getByRole('button', { name: '深色模式' });
  /** Waits for the toggle to show `pressed` (the app hears of a system change by an event) and for colour transitions to end. */
  const settled = async (pressed: boolean) => {
    await page.waitForFunction((expected) => document.querySelector('.theme-toggle')?.getAttribute('aria-pressed') === String(expected), pressed);
    await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'));
  };

  beforeAll(async () => {
    shots = screenshotDir(tempShots);
    platform = await startWebPlatform();
    const token = (await platform.services.userAdmin.createUser({ name: 'dora', password: PASSWORD })).token;
    for (const [name, scene] of [['晚霞.jpg', 'sunset'], ['湖.jpg', 'lake'], ['森林.jpg', 'forest']] as const) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await sampleImage(scene, 'jpeg', 640, 420))], { type: 'image/jpeg' }), name);
      expect((await platform.api('upload', { token, form })).code).toBe(0);
    }
    browser = await launchChromium({ args: ['--lang=zh-CN'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-CN', colorScheme: 'dark' });
    ({ problems } = watchForProblems(context));
    // What the page looks like once parsed, before the app's (deferred) module runs: the first paint.
    await context.addInitScript(() => {
      document.addEventListener('readystatechange', () => {
        if (document.readyState !== 'interactive') return;
        (window as unknown as { firstPaint: unknown }).firstPaint = {
          theme: document.documentElement.getAttribute('data-theme'),
          background: getComputedStyle(document.body).backgroundColor,
          appRan: document.getElementById('app')!.childElementCount > 0,
        };
      });
    });
    page = await context.newPage();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  test('when the system is dark and nothing is chosen, then the sign-in page and the gallery are dark and pass axe-core', async () => {
    await page.goto(`${platform.baseUrl}/app/sign-in`);
    await page.getByRole('heading', { name: '登录' }).waitFor();
    expect(await background()).toBe(DARK_BG);
    expect(await toggle().getAttribute('aria-pressed')).toBe('true');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(shots, 'sign-in-dark.png') });

    await page.getByLabel('用户名').fill('dora');
    await page.getByLabel('密码').fill(PASSWORD);
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL(`${platform.baseUrl}/app/`);
    await page.locator('.gallery-grid li').nth(2).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.gallery-grid img')].every((img) => img.complete && img.naturalWidth > 0));
    expect(await background()).toBe(DARK_BG);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(shots, 'gallery-dark.png') });
  }, 60000);

  test('when the system turns light with nothing chosen, then the app follows it live', async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await settled(false);
    expect(await background()).toBe(LIGHT_BG);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(shots, 'gallery-light.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await settled(true);
    expect(await background()).toBe(DARK_BG);
  }, 60000);

  test('when the toggle chooses light on a dark system, then the choice is kept and a reload paints light from the start', async () => {
    await toggle().click();
    await settled(false);
    expect(await background()).toBe(LIGHT_BG);
    expect(await page.evaluate(() => localStorage.getItem('imagehost.theme'))).toBe('light');

    await page.reload();
    await page.locator('.gallery-grid li').first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { firstPaint: unknown }).firstPaint)).toEqual({ theme: 'light', background: LIGHT_BG, appRan: false });
    await settled(false);
    expect(await background()).toBe(LIGHT_BG);
    expect(await seriousAxeViolations(page)).toEqual([]);

    // And back to dark, which a light system then does not override.
    await toggle().click();
    await settled(true);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await page.locator('.gallery-grid li').first().waitFor();
    expect(await page.evaluate(() => (window as unknown as { firstPaint: unknown }).firstPaint)).toEqual({ theme: 'dark', background: DARK_BG, appRan: false });
    await settled(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
  }, 60000);

  test('when the other pages are shown dark, then each passes axe-core', async () => {
    for (const [route, ready] of [['upload', 'input[type=file]'], ['bin', 'main h1'], ['categories', '.category-name'], ['account', '.token-value'], ['connect', 'main h1']] as const) {
      await page.goto(`${platform.baseUrl}/app/${route}`);
      await page.locator(ready).first().waitFor({ state: 'attached' });
      await settled(true);
      expect({ route, violations: await seriousAxeViolations(page) }).toEqual({ route, violations: [] });
      await page.screenshot({ path: path.join(shots, `${route}-dark.png`) });
    }
    expect(problems).toEqual([]);
  }, 90000);
});
