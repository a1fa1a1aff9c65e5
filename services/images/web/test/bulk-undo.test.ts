/**
 * Undo of a bulk delete: the images a gallery selection moved to the bin come back from the notice's
 * "撤销" (a restore), in light and dark.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, screenshotDir, signInThroughForm } from './support/browser';
import { sampleImage, type Scene } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'undo-password-1';
const NAMES: Array<[string, Scene]> = [
  ['湖边.jpg', 'lake'],
  ['日落.jpg', 'sunset'],
  ['城市.jpg', 'city'],
  ['森林.jpg', 'forest'],
];

describeWithChromium('undo of a bulk delete in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'undo-shots-'));
  let shots: string;

  const listed = async () => (await platform.api('list', { token })).data.list as Array<{ id: number; original_name: string }>;
  const binned = async () => (await platform.api('trash', { token })).data.list as Array<{ id: number; original_name: string }>;

  beforeAll(async () => {
    shots = screenshotDir(tempShots);
    platform = await startWebPlatform();
    token = (await platform.services.userAdmin.createUser({ name: 'uma', password: PASSWORD })).token;
    for (const [name, scene] of NAMES) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await sampleImage(scene, 'jpeg', 480, 320))], { type: 'image/jpeg' }), name);
      expect((await platform.api('upload', { token, form })).code).toBe(0);
    }
    ({ browser, context, page, problems } = await openAppBrowser());
    await signInThroughForm(page, platform.baseUrl, { name: 'uma', password: PASSWORD });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  const cards = () => page.locator('.gallery-grid li');

  async function binThree() {
    await page.waitForFunction(() => document.querySelectorAll('.gallery-grid li').length === 4);
    for (const name of ['湖边.jpg', '日落.jpg', '城市.jpg']) await page.getByLabel(`选择 ${name}`).check();
    await page.getByRole('button', { name: '删除所选' }).click();
    await expect(page.locator('dialog p').textContent()).resolves.toBe('将选中的 3 张图片移到回收站？可在回收站中恢复。');
    await page.locator('dialog [data-confirm]').click();
    await page.waitForFunction(() => document.querySelectorAll('.gallery-grid li').length === 1);
    const notice = page.locator('.notice', { hasText: '已移到回收站：3 张' });
    await notice.waitFor();
    expect((await listed()).map((image) => image.original_name)).toEqual(['森林.jpg']);
    expect((await binned()).map((image) => image.original_name).sort()).toEqual(['城市.jpg', '日落.jpg', '湖边.jpg']);
    return notice;
  }

  test('when three selected images are deleted, then the notice offers 撤销, and it brings all three back from the bin', async () => {
    const notice = await binThree();
    const undo = notice.getByRole('button', { name: '撤销' });
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.screenshot({ path: path.join(shots, 'bulk-undo.png') });
    await undo.click();
    await page.locator('.notice', { hasText: '已恢复 3 张' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.gallery-grid li').length === 4);
    await expect(cards().count()).resolves.toBe(4);
    expect((await listed()).map((image) => image.original_name).sort()).toEqual(['城市.jpg', '日落.jpg', '森林.jpg', '湖边.jpg']);
    expect(await binned()).toEqual([]);
    await expect(page.locator('.notice', { hasText: '已移到回收站' }).count()).resolves.toBe(0);
  }, 90000);

  test('when the same is done in dark mode with the keyboard, then the Undo button is reachable and readable (axe), and works', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.reload();
    const notice = await binThree();
    const undo = notice.getByRole('button', { name: '撤销' });
    await undo.focus();
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.screenshot({ path: path.join(shots, 'bulk-undo-dark.png') });
    await page.keyboard.press('Enter');
    await page.locator('.notice', { hasText: '已恢复 3 张' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.gallery-grid li').length === 4);
    expect(await binned()).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(problems).toEqual([]);
  }, 90000);
});
