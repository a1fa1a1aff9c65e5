/**
 * Sharing an album as its owner lives it: a share link made on the categories page (password,
 * expiry, view limit), copied, opened in a fresh browser (no session, no cookies), then revoked; and
 * an image's public page turned on in its detail dialog.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, screenshotDir, signInThroughForm } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'share-owner-pass-1';
const ALBUM_PASSWORD = 'album-pass-123';
const VIEWER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describeWithChromium('album share links and public image pages in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;
  let imageId: number;
  let shareUrl: string;
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'share-shots-'));
  let shots: string;

  beforeAll(async () => {
    shots = screenshotDir(tempShots);
    platform = await startWebPlatform();
    token = (await platform.services.userAdmin.createUser({ name: 'erin', password: PASSWORD })).token;
    const categoryId = (await platform.api('create_category', { token, form: { name: '旅行' } })).data.id as number;
    const form = new FormData();
    form.append('category_id', String(categoryId));
    form.append('file', new Blob([new Uint8Array(await sampleImage('lake', 'jpeg', 320, 200))], { type: 'image/jpeg' }), 'lake.jpg');
    const uploaded = await platform.api('upload', { token, form });
    expect(uploaded.code).toBe(0);
    imageId = uploaded.data.id;
    ({ browser, context, page, problems } = await openAppBrowser({}, { clipboardFor: platform.baseUrl }));
    await signInThroughForm(page, platform.baseUrl, { name: 'erin', password: PASSWORD });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  /**
   * A browser of someone the link was sent to: its own context, no session, no cookies, and a desktop
   * Chrome's user agent (headless Chromium's own says "HeadlessChrome", which the page takes for a bot).
   */
  async function freshPage(): Promise<{ viewer: Page; close(): Promise<void> }> {
    const other = await browser.newContext({ viewport: { width: 1024, height: 760 }, locale: 'zh-CN', userAgent: VIEWER_AGENT });
    return { viewer: await other.newPage(), close: () => other.close() };
  }

  test('when the owner creates a link with a password and a view limit and copies it, then a fresh browser sees the album after the password', async () => {
    await page.goto(`${platform.baseUrl}/app/categories`);
    await page.getByRole('button', { name: '分享「旅行」' }).click();
    const dialog = page.getByRole('dialog', { name: '分享「旅行」' });
    await dialog.getByText('还没有分享链接。').waitFor();
    await dialog.getByLabel('访问密码（可选，8 到 128 个字符）').fill(ALBUM_PASSWORD);
    await dialog.getByLabel('有效期').selectOption({ label: '7 天' });
    await dialog.getByLabel('查看次数上限（可选）').fill('3');
    await dialog.getByRole('button', { name: '创建分享链接' }).click();
    await page.getByText('分享链接已创建', { exact: true }).first().waitFor();
    await dialog.locator('.share-link[data-state=active]').waitFor();
    await expect(dialog.locator('.share-facts').textContent()).resolves.toMatch(/有效\s*已查看 0 \/ 3 次 · 到期 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d · 有密码/);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.screenshot({ path: path.join(shots, 'share-dialog.png') });
    await dialog.getByRole('button', { name: '复制分享链接 1' }).click();
    shareUrl = await page.evaluate(() => navigator.clipboard.readText());
    expect(shareUrl).toMatch(new RegExp(`^${platform.baseUrl}/s/[A-Za-z0-9_-]{22}$`));

    const { viewer, close } = await freshPage();
    try {
      const opened = await viewer.goto(shareUrl);
      expect(opened?.status()).toBe(200);
      await viewer.getByText('这个分享需要密码。').waitFor();
      await expect(viewer.locator('img').count()).resolves.toBe(0);
      await expect(seriousAxeViolations(viewer)).resolves.toEqual([]);
      await viewer.getByLabel('密码').fill('wrong-password');
      await viewer.getByRole('button', { name: '查看' }).click();
      await viewer.getByText('密码错误').waitFor();
      await viewer.getByLabel('密码').fill(ALBUM_PASSWORD);
      await viewer.getByRole('button', { name: '查看' }).click();
      await viewer.waitForURL(shareUrl);
      const shown = viewer.getByRole('img', { name: 'lake.jpg' });
      await shown.waitFor();
      // The signed thumbnail loaded (a broken image has no natural width).
      await viewer.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
      await expect(seriousAxeViolations(viewer)).resolves.toEqual([]);
      await viewer.screenshot({ path: path.join(shots, 'share-page.png') });
      await viewer.reload();
      await shown.waitFor();
    } finally {
      await close();
    }
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: '分享「旅行」' }).click();
    await expect(dialog.locator('.share-facts').textContent()).resolves.toContain('已查看 1 / 3 次');
  }, 90000);

  test('when the owner revokes the link, then the fresh browser gets the "revoked" page', async () => {
    const dialog = page.getByRole('dialog', { name: '分享「旅行」' });
    await dialog.getByRole('button', { name: '撤销分享链接 1' }).click();
    await page.getByRole('dialog', { name: '确认' }).getByRole('button', { name: '撤销', exact: true }).click();
    await dialog.locator('.share-link[data-state=revoked]').waitFor();
    await page.keyboard.press('Escape');

    const { viewer, close } = await freshPage();
    try {
      const opened = await viewer.goto(shareUrl);
      expect(opened?.status()).toBe(410);
      await viewer.getByText('这个分享链接已被撤销。').waitFor();
      await expect(seriousAxeViolations(viewer)).resolves.toEqual([]);
    } finally {
      await close();
    }
  }, 60000);

  test('when the public page is turned on in the detail dialog, then its link opens a page with Open Graph tags', async () => {
    await page.goto(`${platform.baseUrl}/app/`);
    await page.locator(`[data-image-id="${imageId}"] .card-open`).click();
    const dialog = page.getByRole('dialog');
    const toggle = dialog.getByLabel('公开页（在聊天软件中显示预览卡片）');
    await expect(toggle.isChecked()).resolves.toBe(false);
    await toggle.check();
    await page.getByText('公开页已开启').first().waitFor();
    const pageUrl = await dialog.getByRole('textbox', { name: '公开页链接' }).inputValue();
    expect(pageUrl).toMatch(new RegExp(`^${platform.baseUrl}/p/${imageId}-`));
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);

    const { viewer, close } = await freshPage();
    try {
      expect((await viewer.goto(pageUrl))?.status()).toBe(200);
      await expect(viewer.locator('meta[property="og:image"]').getAttribute('content')).resolves.toMatch(new RegExp(`^${platform.baseUrl}/i/`));
      await expect(viewer.locator('meta[name="twitter:card"]').getAttribute('content')).resolves.toBe('summary_large_image');
      await expect(seriousAxeViolations(viewer)).resolves.toEqual([]);
      await viewer.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
      await viewer.screenshot({ path: path.join(shots, 'public-image-page.png') });
    } finally {
      await close();
    }
    await toggle.uncheck();
    await page.getByText('公开页已关闭').first().waitFor();
    await expect(dialog.getByRole('textbox', { name: '公开页链接' }).count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  }, 60000);

  test('when the owner turns on public pages for the whole album, then the image page opens without its own switch; off again, it is gone', async () => {
    await page.goto(`${platform.baseUrl}/app/categories`);
    await page.getByRole('button', { name: '分享「旅行」' }).click();
    const dialog = page.getByRole('dialog', { name: '分享「旅行」' });
    const albumToggle = dialog.getByLabel('为这个相册的每张图片开启公开页');
    await expect(albumToggle.isChecked()).resolves.toBe(false);
    await albumToggle.check();
    await page.getByText('相册公开页已开启').first().waitFor();
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.keyboard.press('Escape');
    // The categories page has the album's state after a reload too.
    await page.reload();
    await page.getByRole('button', { name: '分享「旅行」' }).click();
    await expect(dialog.getByLabel('为这个相册的每张图片开启公开页').isChecked()).resolves.toBe(true);
    await page.keyboard.press('Escape');

    await page.goto(`${platform.baseUrl}/app/`);
    await page.locator(`[data-image-id="${imageId}"] .card-open`).click();
    const detail = page.getByRole('dialog');
    await detail.getByText('所在相册已开启全部公开页（在相册的分享设置中）。').waitFor();
    await expect(detail.getByLabel('公开页（在聊天软件中显示预览卡片）').isChecked()).resolves.toBe(false);
    const pageUrl = await detail.getByRole('textbox', { name: '公开页链接' }).inputValue();
    expect(pageUrl).toMatch(new RegExp(`^${platform.baseUrl}/p/${imageId}-`));
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    const { viewer, close } = await freshPage();
    try {
      expect((await viewer.goto(pageUrl))?.status()).toBe(200);
      await page.keyboard.press('Escape');
      await page.goto(`${platform.baseUrl}/app/categories`);
      await page.getByRole('button', { name: '分享「旅行」' }).click();
      await dialog.getByLabel('为这个相册的每张图片开启公开页').uncheck();
      await page.getByText('相册公开页已关闭').first().waitFor();
      expect((await viewer.goto(pageUrl))?.status()).toBe(404);
    } finally {
      await close();
    }
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
  }, 90000);
});
