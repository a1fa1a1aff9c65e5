/**
 * Sharing as a user lives it: renaming an image from its detail dialog (search finds the new name),
 * and "copy all links" of an upload batch and of a gallery selection.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, signInThroughForm } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'sharing-password-1';

describeWithChromium('renaming and copying links in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;

  type Listed = { id: number; original_name: string; links: { url: string; markdown: string; bbcode: string } };
  const listed = async (query: Record<string, string> = {}) => (await platform.api('list', { token, query: { limit: '100', links: '1', ...query } })).data.list as Listed[];
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  beforeAll(async () => {
    platform = await startWebPlatform();
    token = (await platform.services.userAdmin.createUser({ name: 'dora', password: PASSWORD })).token;
    ({ browser, context, page, problems } = await openAppBrowser({}, { clipboardFor: platform.baseUrl }));
    await signInThroughForm(page, platform.baseUrl, { name: 'dora', password: PASSWORD });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  test('when a batch finishes uploading, then "copy all links" copies one Markdown line per file in the order shown', async () => {
    await page.goto(`${platform.baseUrl}/app/upload`);
    const files = await Promise.all(
      (['sunset', 'lake', 'city'] as const).map(async (scene, i) => ({ name: `batch-${i + 1}.jpg`, mimeType: 'image/jpeg', buffer: await sampleImage(scene, 'jpeg', 320, 200) })),
    );
    await page.locator('input[type=file]').setInputFiles(files);
    await page.waitForFunction(() => document.querySelectorAll('.upload-item[data-status=done]').length === 3, undefined, { timeout: 60000 });
    await page.getByLabel('链接格式').selectOption('markdown');
    await page.getByRole('button', { name: '复制全部链接（3）' }).click();
    await page.getByText('已复制 3 张图片的链接').waitFor();
    const byName = new Map((await listed()).map((item) => [item.original_name, item.links.markdown]));
    const shownOrder = await page.locator('.upload-item .upload-name').allTextContents();
    expect([...shownOrder].sort()).toEqual(['batch-1.jpg', 'batch-2.jpg', 'batch-3.jpg']);
    expect((await clipboard()).split('\n')).toEqual(shownOrder.map((name) => byName.get(name)));
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
  }, 90000);

  test('when an image is renamed in its detail dialog, then the card, the links and the search show the new name; a blank name cannot be sent', async () => {
    await page.goto(`${platform.baseUrl}/app/`);
    const target = (await listed()).find((item) => item.original_name === 'batch-2.jpg')!;
    await page.locator(`[data-image-id="${target.id}"] .card-open`).click();
    const dialog = page.getByRole('dialog');
    const field = dialog.getByLabel('名称');
    await expect(field.inputValue()).resolves.toBe('batch-2.jpg');
    const save = dialog.getByRole('button', { name: '重命名' });
    await field.fill('   ');
    await expect(save.isDisabled()).resolves.toBe(true);
    await field.fill('海边的日落.jpg');
    await save.click();
    await page.getByText('已重命名为「海边的日落.jpg」').waitFor();
    await dialog.locator('.detail-name').getByText('海边的日落.jpg').waitFor();
    await expect(dialog.locator('[data-link=markdown] input').inputValue()).resolves.toBe(`![海边的日落.jpg](${target.links.url})`);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.keyboard.press('Escape');
    // Closing is Back (the open image is a history entry): the search is typed once it has landed.
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForURL((url) => !url.searchParams.has('image'));
    await page.locator(`[data-image-id="${target.id}"]`).getByText('海边的日落.jpg').waitFor();

    await page.getByLabel('搜索文件名').fill('日落');
    await page.waitForURL((url) => url.searchParams.get('q') === '日落');
    await page.waitForFunction((id) => {
      const cards = document.querySelectorAll('.gallery-grid [data-image-id]');
      return cards.length === 1 && cards[0]!.getAttribute('data-image-id') === String(id);
    }, target.id);
    expect((await listed({ keyword: 'batch-2' })).length).toBe(0);
    await page.getByLabel('搜索文件名').fill('');
  }, 60000);

  test('when images are selected in the gallery, then "copy all links" copies their BBCode, one per line', async () => {
    await page.goto(`${platform.baseUrl}/app/`);
    const items = await listed();
    await page.locator('.gallery-grid [data-image-id]').nth(2).waitFor();
    const chosen = [items[0]!, items[2]!];
    for (const item of chosen) await page.getByRole('checkbox', { name: new RegExp(item.original_name.replace(/[.]/g, '\\.')) }).check();
    await page.getByLabel('链接格式').selectOption('bbcode');
    await page.getByRole('button', { name: '复制全部链接（2）' }).click();
    await page.getByText('已复制 2 张图片的链接').waitFor();
    expect((await clipboard()).split('\n')).toEqual(chosen.map((item) => item.links.bbcode));
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    expect(problems).toEqual([]);
  }, 60000);
});
