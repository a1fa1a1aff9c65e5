/**
 * Offline is told as offline: when the browser goes offline or a request gets no answer at all, the
 * app says the connection is lost (never "the service is unavailable", which is a server's failure),
 * and when the connection comes back the banner leaves and the page loads its data again.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, signInThroughForm } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'finn-password-1';
const BANNER = '网络连接已断开。恢复连接后会自动重新加载。';
const LOST = '网络连接已断开，请检查网络后重试';

describeWithChromium('offline in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  const banner = () => page.locator('.connection-lost');
  const cards = () => page.locator('.gallery-grid li');

  beforeAll(async () => {
    platform = await startWebPlatform();
    const token = (await platform.services.userAdmin.createUser({ name: 'finn', password: PASSWORD })).token;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await sampleImage('lake', 'jpeg', 320, 200))], { type: 'image/jpeg' }), '湖.jpg');
    expect((await platform.api('upload', { token, form })).code).toBe(0);

    ({ browser, context, page, problems } = await openAppBrowser());
    await signInThroughForm(page, platform.baseUrl, { name: 'finn', password: PASSWORD });
    await cards().first().waitFor();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  test('when the browser goes offline, then a banner says the connection is lost, a search says so too, and back online the gallery loads again', async () => {
    await context.setOffline(true);
    await banner().waitFor();
    expect(await banner().textContent()).toBe(BANNER);
    expect(await banner().getAttribute('role')).toBe('alert');

    await page.getByRole('searchbox').fill('湖');
    await page.locator('.load-error').waitFor();
    expect(await page.locator('.load-error span').textContent()).toBe(LOST);
    expect(await seriousAxeViolations(page)).toEqual([]);

    await context.setOffline(false);
    await banner().waitFor({ state: 'detached' });
    // The page loaded afresh: its data is back, the error gone.
    await cards().first().waitFor();
    expect(await page.locator('.load-error').count()).toBe(0);
  }, 60000);

  test('when a request gets no answer though the browser is online, then the connection is lost too; an unreadable 502 is the service\'s failure, and an answer ends the banner', async () => {
    await page.route('**/api/image.php?action=list*', (route) => route.abort('connectionrefused'));
    await page.getByRole('searchbox').fill('森');
    await page.locator('.load-error').waitFor();
    expect(await page.locator('.load-error span').textContent()).toBe(LOST);
    expect(await banner().textContent()).toBe(BANNER);
    await page.unroute('**/api/image.php?action=list*');

    await page.route('**/api/image.php?action=list*', (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>502 Bad Gateway</h1>' }));
    await page.getByRole('searchbox').fill('湖');
    await page.waitForFunction(() => document.querySelector('.load-error span')?.textContent === '服务暂时不可用，请稍后重试', undefined, { timeout: 5000 }).catch(async (error) => {
      throw new Error(`${String(error)} ${await page.evaluate(() => document.querySelector('main')?.innerHTML)}`);
    });
    // An answer came (a bad one): the connection is there.
    expect(await banner().count()).toBe(0);
    await page.unroute('**/api/image.php?action=list*');

    await page.getByRole('button', { name: '重试' }).click();
    await cards().first().waitFor();
    expect(problems.filter((problem) => !problem.includes('Failed to load resource'))).toEqual([]);
  }, 60000);
});
