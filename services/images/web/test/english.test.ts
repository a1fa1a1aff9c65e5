/**
 * The app in English says everything in English: the default category's name, the HEIC refusal's
 * advice, and an empty file (the service says it is empty too, not "choose a file").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { signInThroughForm, watchForProblems } from './support/browser';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'ivan-password-1';
const HEIC = readFileSync(path.join(__dirname, '../../test/fixtures/photo.heic'));

describeWithChromium('the app in English, in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;

  beforeAll(async () => {
    platform = await startWebPlatform();
    token = (await platform.services.userAdmin.createUser({ name: 'ivan', password: PASSWORD })).token;
    browser = await launchChromium({ args: ['--lang=zh-CN'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    // The language button's choice, kept as the app keeps it (documents without storage, such as about:blank, skip it).
    await context.addInitScript(() => {
      if (location.pathname.startsWith('/app/')) localStorage.setItem('imagehost.lang', 'en');
    });
    ({ problems } = watchForProblems(context));
    page = await context.newPage();
    await signInThroughForm(page, platform.baseUrl, { name: 'ivan', password: PASSWORD }, 'en');
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  test('when the categories are shown in English, then the default one is "Default category" (its stored name unchanged)', async () => {
    await page.goto(`${platform.baseUrl}/app/categories`);
    await page.locator('.category-name').first().waitFor();
    expect(await page.locator('.category-name').allTextContents()).toEqual(['Default category']);
    await page.goto(`${platform.baseUrl}/app/upload`);
    await page.waitForFunction(() => document.querySelector('select option')?.textContent === 'Default category');
    const session = (await platform.api('login', { form: { username: 'ivan', password: PASSWORD } })).data.token;
    expect((await platform.api('categories', { token: session })).data.list.map((item: { name: string }) => item.name)).toEqual(['默认分类']);
  }, 60000);

  test('when a HEIC photo and an empty file are picked, then each says why in English', async () => {
    await page.locator('input[type=file]').setInputFiles([
      { name: 'IMG_0001.heic', mimeType: 'image/heic', buffer: HEIC },
      { name: 'blank.png', mimeType: 'image/png', buffer: Buffer.alloc(0) },
    ]);
    const heic = page.locator('li', { hasText: 'IMG_0001.heic' });
    await heic.getByText('HEIC images are not supported yet', { exact: false }).waitFor();
    expect(await heic.textContent()).toContain('convert to JPEG before uploading (iPhone: Settings → Camera → Formats → Most Compatible)');
    const blank = page.locator('li', { hasText: 'blank.png' });
    expect(await blank.textContent()).toContain('empty');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // A client that sends an empty file anyway hears that it is empty.
    const form = new FormData();
    form.append('file', new Blob([]), 'blank.png');
    expect(await platform.api('upload', { token, form })).toEqual({ code: 1, msg: '文件为空（0 字节），请选择有内容的图片' });
    expect(problems.filter((problem) => !problem.includes('Failed to load resource'))).toEqual([]);
  }, 60000);
});
