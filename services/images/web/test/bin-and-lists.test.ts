/**
 * The bin and the lists as a user lives in them: binned images with their thumbnails, readable on a
 * 390 px phone; forms that a double click cannot submit twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, screenshotDir, signInThroughForm } from './support/browser';
import { sampleImage, type Scene } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'lists-password-1';
const LONG_NAME = '2026 年春节家庭聚会合影（外婆家）最终版 IMG_20260217_184512.jpg';

describeWithChromium('the bin and the lists in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'lists-shots-'));
  let shots: string;

  async function uploadVia(name: string, scene: Scene): Promise<number> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await sampleImage(scene, 'jpeg', 640, 420))], { type: 'image/jpeg' }), name);
    const answer = await platform.api('upload', { token, form });
    expect(answer.code).toBe(0);
    return answer.data.id as number;
  }

  /** Every element matching `selector` is laid out on one line (one box), i.e. not wrapped word by word. */
  const oneLineEach = (target: Page, selector: string) =>
    target.evaluate((css) => [...document.querySelectorAll(css)].map((node) => node.getClientRects().length === 1 && (node as HTMLElement).offsetHeight < 24), selector);

  beforeAll(async () => {
    shots = screenshotDir(tempShots);
    platform = await startWebPlatform();
    token = (await platform.services.userAdmin.createUser({ name: 'carol', password: PASSWORD })).token;
    const binned = [await uploadVia(LONG_NAME, 'sunset'), await uploadVia('海边.jpg', 'lake'), await uploadVia('city-night.jpg', 'city')];
    await uploadVia('森林.jpg', 'forest');
    await uploadVia(LONG_NAME.replace('.jpg', ' (2).jpg'), 'flowers');
    expect((await platform.api('delete', { token, form: { ids: binned.join(',') } })).code).toBe(0);

    ({ browser, context, page, problems } = await openAppBrowser({ acceptDownloads: true }));
    await signInThroughForm(page, platform.baseUrl, { name: 'carol', password: PASSWORD });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  test('when the bin is opened, then each binned image shows its thumbnail; the public thumbnail stays dead', async () => {
    await page.goto(`${platform.baseUrl}/app/bin`);
    await page.locator('.bin-item').nth(2).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.bin-thumb')].every((img) => img.complete && img.naturalWidth > 0));
    expect(await page.locator('.bin-thumb').count()).toBe(3);
    const trash = (await platform.api('trash', { token })).data.list as Array<{ id: number; thumb_url: string }>;
    for (const item of trash) {
      expect(await page.locator(`[data-image-id="${item.id}"] .bin-thumb`).getAttribute('src')).toBe(item.thumb_url);
      const publicThumb = item.thumb_url.replace('&bin=1', '');
      expect((await fetch(publicThumb)).status).toBe(404);
    }
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.screenshot({ path: path.join(shots, 'bin-thumbnails.png') });
  }, 60000);

  test('when the bin and the gallery are opened on a 390 px phone, then names are readable and size and dates do not wrap word by word', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    try {
      await phone.goto(`${platform.baseUrl}/app/bin`);
      await phone.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.bin-thumb')].every((img) => img.complete && img.naturalWidth > 0) && document.querySelectorAll('.bin-thumb').length === 3);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      // The name takes the row's width (not a letter beside the buttons), and shows more than its first word.
      const nameWidths = await phone.locator('.bin-name').evaluateAll((names) => names.map((name) => name.getBoundingClientRect().width));
      expect(Math.min(...nameWidths)).toBeGreaterThan(200);
      expect(await oneLineEach(phone, '.bin-meta .nowrap')).not.toContain(false);
      const purgeLines = await phone.locator('.bin-purge').evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
      expect(Math.max(...purgeLines)).toBeLessThan(24);
      await expect(seriousAxeViolations(phone)).resolves.toEqual([]);
      await phone.screenshot({ path: path.join(shots, 'phone-bin.png') });

      await phone.goto(`${platform.baseUrl}/app/`);
      await phone.waitForFunction(() => document.querySelectorAll('.gallery-grid li').length === 2);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      expect(await oneLineEach(phone, '.card-meta .nowrap')).not.toContain(false);
      // A long name gets two lines rather than a few characters and an ellipsis.
      const nameLines = await phone.locator('.card-name').first().evaluate((name) => Math.round(name.getBoundingClientRect().height / parseFloat(getComputedStyle(name).lineHeight)));
      expect(nameLines).toBe(2);
    } finally {
      await phone.close();
    }
  }, 60000);

  test('when a form is submitted with a double click, then one category, one named token and one ShareX config are made, and no error is shown', async () => {
    await page.goto(`${platform.baseUrl}/app/categories`);
    await page.getByLabel('新分类名称').fill('旅行');
    await page.getByRole('button', { name: '创建分类' }).dblclick();
    await page.locator('.notice.success').waitFor();
    const categories = (await platform.api('categories', { token })).data.list as Array<{ name: string }>;
    expect(categories.filter((category) => category.name === '旅行')).toHaveLength(1);
    expect(await page.locator('.notice.error').count()).toBe(0);

    await page.goto(`${platform.baseUrl}/app/account`);
    await page.getByLabel('令牌名称').fill('backup script');
    await page.getByRole('button', { name: '创建令牌' }).dblclick();
    await page.locator('.callout.success').waitFor();
    const downloads: string[] = [];
    page.on('download', (download) => downloads.push(download.suggestedFilename()));
    await page.locator('[data-client=sharex]').dblclick();
    await page.locator('.token-name', { hasText: /^ShareX / }).waitFor();

    const session = await page.evaluate(() => (JSON.parse(localStorage.getItem('imagehost.session') ?? 'null') as { token: string }).token);
    const named = ((await platform.api('tokens', { token: session })).data.list as Array<{ name: string }>).map((item) => item.name);
    expect(named.filter((name) => name === 'backup script')).toHaveLength(1);
    expect(named.filter((name) => name.startsWith('ShareX '))).toHaveLength(1);
    expect(downloads).toHaveLength(1);
    expect(await page.locator('.notice.error').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 60000);
});
