/**
 * When the session ends mid-work: the sign-in page says so (also after a reload), signing in again
 * returns to the page the user was on (path and query), with what they had typed put back. Signing
 * out on purpose starts afresh, and `next` never leads outside the app.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser } from './support/browser';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'hana-password-1';
const ENDED = '登录已失效，请重新登录';

describeWithChromium('session expiry in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  const signIn = async () => {
    await page.getByLabel('用户名').fill('hana');
    await page.getByLabel('密码').fill(PASSWORD);
    await page.getByRole('button', { name: '登录' }).click();
  };
  /** Ends the browser's session on the service, as an expiry would: its next request answers 请先登录. */
  const endSession = async () => {
    const session = await page.evaluate(() => JSON.parse(localStorage.getItem('imagehost.session')!).token as string);
    expect((await platform.api('logout', { token: session, method: 'POST' })).code).toBe(0);
  };
  const categoryNames = async () => ((await platform.api('categories', { token: (await platform.api('login', { form: { username: 'hana', password: PASSWORD } })).data.token })).data.list as Array<{ name: string }>).map((item) => item.name);

  beforeAll(async () => {
    platform = await startWebPlatform();
    await platform.services.userAdmin.createUser({ name: 'hana', password: PASSWORD });
    ({ browser, context, page, problems } = await openAppBrowser());
    await page.goto(`${platform.baseUrl}/app/sign-in`);
    await signIn();
    await page.waitForURL(`${platform.baseUrl}/app/`);
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  test('when the session ends as a form is sent, then sign-in says so (after a reload too), and signing in returns to the page with the typed name', async () => {
    await page.goto(`${platform.baseUrl}/app/categories`);
    await page.getByLabel('新分类名称').fill('旅行 2027');
    await endSession();
    await page.getByRole('button', { name: '创建分类' }).click();

    await page.waitForURL(`${platform.baseUrl}/app/sign-in?next=%2Fapp%2Fcategories&ended=1`);
    await page.getByRole('alert').waitFor({ timeout: 3000 }).catch(async () => {
      throw new Error(await page.evaluate(() => document.body.innerHTML));
    });
    expect(await page.getByRole('alert').textContent()).toBe(ENDED);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.reload();
    expect(await page.getByRole('alert').textContent()).toBe(ENDED);
    expect(await categoryNames()).not.toContain('旅行 2027');

    await signIn();
    await page.waitForURL(`${platform.baseUrl}/app/categories`);
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>('.create-form input')?.value === '旅行 2027');
    // Its page state took the value too: creating it now works.
    await page.getByRole('button', { name: '创建分类' }).click();
    await page.locator('.category-name', { hasText: '旅行 2027' }).waitFor();
    expect(await categoryNames()).toContain('旅行 2027');
  }, 60000);

  test('when the session ends on a gallery search, then signing in returns to the same search', async () => {
    await page.goto(`${platform.baseUrl}/app/?q=%E6%A3%AE`);
    await page.getByRole('searchbox').waitFor();
    await endSession();
    await page.reload();
    await page.waitForURL((url) => url.pathname === '/app/sign-in' && url.searchParams.get('next') === '/app/?q=%E6%A3%AE' && url.searchParams.get('ended') === '1');
    await signIn();
    await page.waitForURL(`${platform.baseUrl}/app/?q=%E6%A3%AE`);
    expect(await page.getByRole('searchbox').inputValue()).toBe('森');
  }, 60000);

  test('when the user signs out, then sign-in is plain (no message, no way back); a next outside the app leads to the gallery', async () => {
    await page.goto(`${platform.baseUrl}/app/account`);
    await page.getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL(`${platform.baseUrl}/app/sign-in`);
    expect(await page.getByRole('alert').count()).toBe(0);

    for (const next of ['https://example.com/app/', '//example.com/app/', '/app/sign-in']) {
      await page.goto(`${platform.baseUrl}/app/sign-in?next=${encodeURIComponent(next)}`);
      await signIn();
      await page.waitForURL(`${platform.baseUrl}/app/`);
      await page.evaluate(() => localStorage.removeItem('imagehost.session'));
    }
    expect(problems.filter((problem) => !problem.includes('Failed to load resource'))).toEqual([]);
  }, 60000);
});
