/**
 * An expiry per image as its owner sets it: chosen on the upload page before the files, shown in the
 * gallery, changed and cleared in the image's detail dialog; the expiry job (its time given, no
 * waiting) moves the image into the bin.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, signInThroughForm } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'expiry-owner-pass-1';
const HOUR = 3600 * 1000;

describeWithChromium('an expiry per image in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;

  beforeAll(async () => {
    platform = await startWebPlatform();
    token = (await platform.services.userAdmin.createUser({ name: 'frank', password: PASSWORD })).token;
    ({ browser, context, page, problems } = await openAppBrowser({ timezoneId: 'Asia/Shanghai' }));
    await signInThroughForm(page, platform.baseUrl, { name: 'frank', password: PASSWORD });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  const listed = async () => (await platform.api('list', { token, query: { links: '1' } })).data.list as Array<{ id: number; original_name: string; expires_at: string | null }>;

  test('when an expiry is chosen on the upload page, then the image expires then, the gallery marks it, and the detail dialog changes and clears it', async () => {
    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '上传', exact: true }).click();
    await page.getByLabel('过期时间').selectOption({ label: '1 天后' });
    const before = Date.now();
    await page.locator('input[type=file]').setInputFiles([{ name: 'expiring.jpg', mimeType: 'image/jpeg', buffer: await sampleImage('desert') }]);
    await page.locator('.upload-item[data-status=done]', { hasText: 'expiring.jpg' }).waitFor();
    const [image] = await listed();
    expect(image!.original_name).toBe('expiring.jpg');
    const expiresAt = new Date(image!.expires_at!).getTime();
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * HOUR - 60_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 60_000);

    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '图库', exact: true }).click();
    await page.waitForURL(`${platform.baseUrl}/app/`);
    const card = page.locator(`[data-image-id="${image!.id}"]`);
    await card.locator('.expiry-mark').waitFor();
    await expect(card.locator('.expiry-mark').textContent()).resolves.toBe('会过期');

    await card.locator('.card-open').click();
    const dialog = page.getByRole('dialog');
    const field = dialog.getByLabel('过期时间（到时移入回收站）');
    // Shown in the viewer's zone (Asia/Shanghai), as a datetime-local value.
    const shanghai = new Date(expiresAt + 8 * HOUR).toISOString().slice(0, 16);
    await expect(field.inputValue()).resolves.toBe(shanghai);
    await field.fill('2031-05-01T09:30');
    await dialog.getByRole('button', { name: '设置', exact: true }).click();
    await page.getByText('已设置过期时间').first().waitFor();
    expect((await listed())[0]!.expires_at).toBe('2031-05-01T01:30:00.000Z');
    await expect(dialog.locator('[data-expiry-state]').textContent()).resolves.toContain('2031');
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);

    await dialog.getByRole('button', { name: '清除', exact: true }).click();
    await page.getByText('已清除过期时间').first().waitFor();
    expect((await listed())[0]!.expires_at).toBeNull();
    await expect(dialog.locator('[data-expiry-state]').textContent()).resolves.toBe('永不过期');
    expect(problems).toEqual([]);
  }, 90000);

  test('when an image is uploaded with an expiry and the job runs past it, then the image leaves the gallery for the bin', async () => {
    const form = new FormData();
    form.append('expires_in', '3600');
    form.append('file', new Blob([new Uint8Array(await sampleImage('aurora'))], { type: 'image/jpeg' }), 'aurora.jpg');
    const uploaded = await platform.api('upload', { token, form });
    expect(uploaded.code).toBe(0);
    // The job as the timer runs it, at a time two hours on.
    expect(await platform.services.bin.binExpired(new Date(Date.now() + 2 * HOUR))).toBe(1);
    await page.goto(`${platform.baseUrl}/app/`);
    await page.locator('[data-image-id]').first().waitFor();
    await expect(page.locator(`[data-image-id="${uploaded.data.id}"]`).count()).resolves.toBe(0);
    const trash = (await platform.api('trash', { token })).data.list as Array<{ id: number }>;
    expect(trash.map((item) => item.id)).toEqual([uploaded.data.id]);
  }, 60000);
});
