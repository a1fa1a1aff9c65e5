/**
 * Registration in the browser: offered only when the service says it is open (`features`).
 */
import type { Browser } from 'playwright-core';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { watchForProblems } from './support/browser';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

describeWithChromium('registration in Chromium', () => {
  let browser: Browser;
  const platforms: WebPlatform[] = [];

  beforeAll(async () => {
    browser = await launchChromium({ args: ['--lang=zh-CN'] });
  }, 60000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all(platforms.map((platform) => platform.close()));
  });

  test('when registration is open, then a visitor registers from the sign-in page and lands signed in on the empty gallery', async () => {
    const platform = await startWebPlatform({ REGISTRATION_ENABLED: 'true' });
    platforms.push(platform);
    const context = await browser.newContext({ locale: 'zh-CN' });
    const { problems } = watchForProblems(context);
    const page = await context.newPage();
    await page.goto(`${platform.baseUrl}/app/`);
    await page.getByRole('link', { name: '注册' }).click();
    await page.waitForURL('**/app/register');
    await page.getByRole('heading', { name: '注册' }).waitFor();

    await page.getByLabel('用户名').fill('carol');
    await page.getByLabel('密码').fill('short');
    await page.getByRole('button', { name: '注册并登录' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('密码长度须为 8 到 128 个字符');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByLabel('密码').fill('carol-password-1');
    await page.getByRole('button', { name: '注册并登录' }).click();
    await page.getByText('还没有图片').waitFor();
    expect((await platform.api('login', { form: { username: 'carol', password: 'carol-password-1' } })).code).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 90000);

  test('when registration is closed, then the sign-in page offers none and /app/register is the sign-in form', async () => {
    const platform = await startWebPlatform();
    platforms.push(platform);
    const context = await browser.newContext({ locale: 'zh-CN' });
    const page = await context.newPage();
    // The page asks the service whether registration is open; wait for that answer before looking.
    const features = page.waitForResponse((response) => response.url().includes('action=features'));
    await page.goto(`${platform.baseUrl}/app/register`);
    expect(await (await features).json()).toEqual({ code: 0, msg: '成功', data: { registration: false, site_name: null } });
    await page.getByRole('heading', { name: '登录' }).waitFor();
    expect(await page.getByRole('link', { name: '注册' }).count()).toBe(0);
    await context.close();
  }, 90000);
});
