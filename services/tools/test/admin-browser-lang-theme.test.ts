/// <reference lib="dom" />
/**
 * In Chromium (playwright-core): the editors' admin in dark mode (the system's preference, then the header's
 * toggle, kept across pages and applied before the first paint) and in English (the browser's
 * Accept-Language, then the header's switch): an editor signs in, adds a tool (refused once, then saved),
 * features it and deletes it in English. axe-core finds no serious or critical violation in light, dark and
 * English. Screenshots go to ADMIN_SCREENSHOT_DIR (`npm run screenshots:admin` sets docs/screenshots), else a
 * temp folder.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { useAdminSite } from './support/browser-site';
import { ADMIN_SCRIPTS, scriptsOf } from './support/admin-scripts';

jest.setTimeout(60_000);

describeWithChromium('editors admin in dark mode and in English, in Chromium', () => {
  const site = useAdminSite({ shotPrefix: 'admin-shots-' });
  const newPage = site.newPage;

  async function expectAccessible(page: Page): Promise<void> {
    await expect(scriptsOf(page)).resolves.toEqual(ADMIN_SCRIPTS);
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(site.shotDir, `${name}.png`), fullPage: true });
  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const DARK_BG = 'rgb(15, 17, 23)';
  const LIGHT_BG = 'rgb(245, 246, 250)';

  async function signIn(page: Page, labels: { name: string; password: string; button: string }): Promise<void> {
    await page.goto(`${site.base}/admin/`);
    await page.getByLabel(labels.name).fill('alice');
    await page.getByLabel(labels.password).fill('correct horse');
    await page.getByRole('button', { name: labels.button }).click();
    await page.waitForURL(`${site.base}/admin/tools`);
  }

  it('when the system prefers dark, then the admin is dark from the sign-in page on, and passes axe', async () => {
    const page = await newPage({ colorScheme: 'dark' });
    await page.goto(`${site.base}/admin/`);
    expect(await background(page)).toBe(DARK_BG);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-sign-in-dark');
    await signIn(page, { name: '用户名', password: '密码', button: '登录' });
    expect(await background(page)).toBe(DARK_BG);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-tools-dark');
    await page.getByRole('link', { name: '添加工具' }).click();
    await page.getByRole('button', { name: '保存' }).click();
    await expect(page.getByRole('alert').count()).resolves.toBe(1);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-tool-form-dark');
    await page.goto(`${site.base}/admin/import`);
    await expectAccessible(page);
  });

  it('when the editor turns dark mode on with the toggle, then the next page is dark before its first paint, and back to light', async () => {
    const page = await newPage({ colorScheme: 'light' });
    await signIn(page, { name: '用户名', password: '密码', button: '登录' });
    expect(await background(page)).toBe(LIGHT_BG);
    const toggle = page.getByRole('button', { name: '深色模式' });
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('false');
    await toggle.click();
    await expect(toggle.getAttribute('aria-pressed')).resolves.toBe('true');
    expect(await background(page)).toBe(DARK_BG);

    // The saved pick is on <html> before anything paints: checked as the document is parsed, before theme.js runs.
    await page.addInitScript(() => {
      document.addEventListener('readystatechange', () => {
        if (document.readyState === 'interactive') (window as unknown as { themeAtParse: string | null }).themeAtParse = document.documentElement.getAttribute('data-theme');
      });
    });
    await page.goto(`${site.base}/admin/categories`);
    await expect(page.evaluate(() => (window as unknown as { themeAtParse: string | null }).themeAtParse)).resolves.toBe('dark');
    expect(await background(page)).toBe(DARK_BG);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-categories-dark');

    await page.getByRole('button', { name: '深色模式' }).click();
    expect(await background(page)).toBe(LIGHT_BG);
    await page.reload();
    expect(await background(page)).toBe(LIGHT_BG);
  });

  it('when the browser prefers English, then the admin is English; an editor adds a tool (refused once), features and deletes it in English', async () => {
    const page = await newPage({ locale: 'en-US' });
    await page.goto(`${site.base}/admin/`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expectAccessible(page);
    await shoot(page, 'directory-admin-sign-in-en');
    await signIn(page, { name: 'User name', password: 'Password', button: 'Sign in' });
    await expect(page.getByRole('heading', { level: 1 }).first().textContent()).resolves.toBe('Tools');
    await expectAccessible(page);
    await shoot(page, 'directory-admin-tools-en');

    await page.getByRole('link', { name: 'Add a tool' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Vite');
    await page.getByRole('button', { name: 'Save' }).click();
    // Refused (no slug, URL or category): the summary in English, each error linked to its field.
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The form has');
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expectAccessible(page);
    await page.getByLabel('Slug (URL name)').fill('vite');
    await page.getByLabel('URL', { exact: true }).fill('https://vite.dev');
    await page.getByLabel('Description', { exact: true }).fill('下一代前端构建工具');
    await page.getByLabel('Category').selectOption({ index: 1 });
    await shoot(page, 'directory-admin-tool-form-en');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(`${site.base}/admin/tools?done=saved`);
    await expect(page.getByRole('status').textContent()).resolves.toBe('Saved.');

    await page.goto(`${site.base}/admin/tools?q=vite`);
    await page.getByRole('row', { name: /Vite/ }).getByRole('button', { name: 'Feature' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Featured.');
    await page.goto(`${site.base}/admin/tools?q=vite`);
    await page.getByRole('row', { name: /Vite/ }).getByRole('link', { name: 'Delete' }).click();
    await expect(page.getByRole('heading', { name: 'Delete “Vite”?' }).count()).resolves.toBe(1);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Deleted.');
    expect((await site.harness.db('tools').where({ slug: 'vite' })).length).toBe(0);
  });

  it('when an editor switches the language in the header, then the admin stays in that language on the next pages', async () => {
    const page = await newPage({ locale: 'zh-CN' });
    await signIn(page, { name: '用户名', password: '密码', button: '登录' });
    await page.goto(`${site.base}/admin/keys`);
    await page.getByRole('link', { name: 'Switch to English' }).click();
    await page.waitForURL(`${site.base}/admin/keys`);
    await expect(page.getByRole('heading', { level: 1 }).first().textContent()).resolves.toBe('API keys');
    await page.goto(`${site.base}/admin/import`);
    await expect(page.getByRole('heading', { level: 1 }).first().textContent()).resolves.toBe('Import and export');
    await expectAccessible(page);
    await shoot(page, 'directory-admin-import-en');
    await page.getByRole('link', { name: '切换到中文' }).click();
    await page.waitForURL(`${site.base}/admin/import`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('zh-CN');
    await expect(page.getByRole('heading', { level: 1 }).first().textContent()).resolves.toBe('导入与导出');
  });

  it('when the pages were shown, then the browser reported no error (no CSP refusal of the theme scripts)', () => {
    expect(site.problems.filter((problem) => !/Failed to load resource: the server responded with a status of (401|409|422|201)/.test(problem))).toEqual([]);
  });
});
