/// <reference lib="dom" />
/**
 * Link health and icon override in the admin, in Chromium: against tool sites on loopback (127.0.0.2 is
 * allowed by OUTBOUND_ALLOW_CIDRS here); axe-core on each page. Screenshots go to ADMIN_SCREENSHOT_DIR
 * (`npm run screenshots:admin` sets docs/screenshots), else a temp folder.
 */
import http from 'node:http';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { addEditor } from './support/editors';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';
import { adminScreenshotDir, listenOnLoopback } from './support/browser-site';
import { ADMIN_SCRIPTS, scriptsOf } from './support/admin-scripts';
import { PUBLIC_TEST_HOST, startSite, type LoopbackSite } from './support/loopback-site';


jest.setTimeout(180_000);

describeWithChromium('link health and icons in the admin, in Chromium', () => {
  let harness: Harness;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let shotDir: string;
  let iconSite: LoopbackSite;
  let deadSite: LoopbackSite;

  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, smallCatalog);
    await addEditor(harness.db, 'alice', 'correct horse');
    const logo = await sharp({ create: { width: 48, height: 48, channels: 4, background: '#0ea5e9' } }).png().toBuffer();
    iconSite = await startSite((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(logo));
    deadSite = await startSite((_req, res) => res.writeHead(410).end('gone'));
    await harness.db('tools').where({ slug: 'github' }).update({ url: `${deadSite.origin}/` });
    ({ server, base } = await listenOnLoopback(harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000', OUTBOUND_ALLOW_CIDRS: `${PUBLIC_TEST_HOST}/32`, OUTBOUND_TIMEOUT_MS: '5000' } })));
    shotDir = adminScreenshotDir('admin-shots-');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, locale: 'zh-CN' });
    await context.route((url) => url.origin !== base, (route) => route.abort('connectionrefused'));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await iconSite?.close();
    await deadSite?.close();
    await harness?.close();
  });

  async function expectAccessible(page: Page): Promise<void> {
    await expect(scriptsOf(page)).resolves.toEqual(ADMIN_SCRIPTS);
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shotDir, `${name}.png`), fullPage: true });

  /** Signs in, unless this browser context's session already is (a signed-in editor goes on to the tools). */
  async function signIn(page: Page) {
    await page.goto(`${base}/admin/`);
    if (new URL(page.url()).pathname === '/admin/tools') return;
    await page.getByLabel('用户名').fill('alice');
    await page.getByLabel('密码').fill('correct horse');
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL(`${base}/admin/tools`);
  }

  it('when an editor refuses a bad file, then overrides the icon by URL, then the edit page and the public page show the new icon', async () => {
    const page = await context.newPage();
    await signIn(page);
    const id = Number((await harness.db('tools').where({ slug: 'github' }).first('id')).id);
    await page.goto(`${base}/admin/tools/${id}/edit`);
    await expect(page.getByText('还没有存储的图标，网站显示首字母。').count()).resolves.toBe(1);

    await page.getByLabel('上传图标文件').setInputFiles({ name: 'icon.png', mimeType: 'image/png', buffer: Buffer.from('not an image at all') });
    await page.getByRole('button', { name: '上传', exact: true }).click();
    await expect(page.locator('#field-icon_file-error').textContent()).resolves.toBe('不是可用的图标：not an image (unknown magic bytes)');
    await expectAccessible(page);
    await shoot(page, 'directory-admin-icon-refused');

    await page.getByLabel('用网址指定图标').fill(`${iconSite.origin}/logo.png`);
    await page.getByRole('button', { name: '使用此网址' }).click();
    await page.waitForURL(`${base}/admin/tools/${id}/edit?done=icon#icon`);
    await expect(page.getByRole('status').textContent()).resolves.toBe('图标已更新。');
    const image = page.locator('.icon-current img');
    await expect(image.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).resolves.toBe(48);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-icon');

    await page.goto(`${base}/tool/github`);
    const publicIcon = page.locator('.tool-icon img').first();
    await expect(publicIcon.getAttribute('src')).resolves.toMatch(/^\/icons\/github\?v=/);
    await page.close();
  });

  it('when an editor checks a dead tool now, then its history and the broken-links page show it', async () => {
    const page = await context.newPage();
    await signIn(page);
    await page.getByRole('link', { name: '失效链接' }).click();
    await page.waitForURL(`${base}/admin/links`);
    await expect(page.getByText('没有这种状态的链接。').count()).resolves.toBe(1);

    await page.goto(`${base}/admin/links/github`);
    await page.getByRole('button', { name: /立即检查/ }).click();
    await page.waitForURL(`${base}/admin/links/github?checked=broken`);
    await expect(page.getByRole('status').textContent()).resolves.toBe('已检查：失效。');
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-link-history');

    await page.getByRole('link', { name: '返回失效链接' }).click();
    await expect(page.locator('[data-count="broken"]').textContent()).resolves.toBe('1');
    await expect(page.getByRole('link', { name: 'GitHub', exact: true }).count()).resolves.toBe(1);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-link-health');
    await page.close();
  });
});
