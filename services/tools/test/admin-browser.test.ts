/// <reference lib="dom" />
/**
 * The editors' admin in a real browser (Debian's Chromium through playwright-core): sign in, add a tool
 * (first with a mistake), see it on the public site; axe-core on every admin page. The admin needs no
 * JavaScript: its pages hold no script, and its CSP would refuse one. Screenshots go to ADMIN_SCREENSHOT_DIR (`npm run screenshots:admin` sets
 * docs/screenshots), else a temp folder.
 */
import http from 'node:http';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addEditor } from './support/editors';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';
import { adminScreenshotDir, listenOnLoopback } from './support/browser-site';
import { ADMIN_SCRIPTS, scriptsOf } from './support/admin-scripts';


jest.setTimeout(180_000);

describeWithChromium('editors admin in Chromium', () => {
  let harness: Harness;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let shotDir: string;
  const problems: string[] = [];

  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, smallCatalog);
    await addEditor(harness.db, 'alice', 'correct horse');
    ({ server, base } = await listenOnLoopback(harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000', SITE_CACHE_TTL_MS: '60000' } })));
    shotDir = adminScreenshotDir('admin-shots-');
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, locale: 'zh-CN' });
    await context.route((url) => url.origin !== base, (route) => route.abort('connectionrefused'));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await harness?.close();
  });

  async function newPage(): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    return page;
  }

  /** The page holds only the theme's scripts, and axe-core (injected by the test) finds no serious or critical violation. */
  async function expectAccessible(page: Page): Promise<void> {
    await expect(scriptsOf(page)).resolves.toEqual(ADMIN_SCRIPTS);
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shotDir, `${name}.png`), fullPage: true });

  it('when an editor signs in and adds a tool, then the tool is on the public site', async () => {
    const page = await newPage();
    await page.goto(`${base}/admin/tools`);
    expect(new URL(page.url()).pathname).toBe('/admin/');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('编辑登录');
    await expectAccessible(page);
    await shoot(page, 'directory-admin-sign-in');

    await page.getByLabel('用户名').fill('alice');
    await page.getByLabel('密码').fill('wrong password');
    await page.getByRole('button', { name: '登录' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('用户名或密码错误。');
    await page.getByLabel('密码').fill('correct horse');
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL(`${base}/admin/tools`);
    await expect(page.getByText('已登录：alice').count()).resolves.toBe(1);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-tools');

    await page.getByRole('link', { name: '添加工具' }).click();
    await page.waitForURL(`${base}/admin/tools/new`);
    await page.getByLabel('名称', { exact: true }).fill('Excalidraw');
    await page.getByLabel('Slug（网址名）').fill('excalidraw');
    await page.getByLabel('网址', { exact: true }).fill('excalidraw.com');
    await page.getByLabel('分类').selectOption({ label: '图片处理' });
    await page.getByLabel('简介', { exact: true }).fill('手绘风格的在线白板');
    await page.getByLabel('标签').fill('白板, 画图');
    await page.getByLabel('推荐到首页').check();
    await page.getByRole('button', { name: '保存' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('表单有 1 处需要修改');
    await expect(page.locator('#field-url-error').textContent()).resolves.toBe('网址不是有效的 http(s) 网址');
    await expect(page.getByLabel('名称', { exact: true }).inputValue()).resolves.toBe('Excalidraw');
    await expectAccessible(page);
    await shoot(page, 'directory-admin-tool-form');

    await page.getByLabel('网址', { exact: true }).fill('https://excalidraw.com');
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(`${base}/admin/tools?done=saved`);
    await expect(page.getByRole('status').textContent()).resolves.toBe('已保存。');
    await expect(page.getByRole('link', { name: 'Excalidraw', exact: true }).count()).resolves.toBe(1);

    await page.goto(`${base}/category/image`);
    // The card itself opens the tool's site in a new tab; its page here is the card's 详情 link.
    await expect(page.locator('.tool-card[data-slug="excalidraw"] .tool-card__link').getAttribute('target')).resolves.toBe('_blank');
    await page.getByRole('link', { name: 'Excalidraw 的详情' }).click();
    await page.waitForURL(/\/tool\/excalidraw$/);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Excalidraw');
    await expect(page.getByText('手绘风格的在线白板').count()).resolves.toBeGreaterThan(0);
    await page.close();
  });

  it('when the editor opens categories and a category form, then they are accessible, and a non-empty category is not deleted', async () => {
    const page = await newPage();
    await page.goto(`${base}/admin/categories`);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-categories');
    await page.getByRole('link', { name: /^编辑\s*：图片处理$/ }).click();
    await expect(page.getByLabel('名称', { exact: true }).inputValue()).resolves.toBe('图片处理');
    await expectAccessible(page);
    await page.getByRole('link', { name: '删除' }).click();
    await expectAccessible(page);
    await page.getByRole('button', { name: '确认删除' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('分类「图片处理」下还有 3 个工具，不能删除');
    await page.close();
  });

  it('when the editor creates an API key, then it is shown once on an accessible page', async () => {
    const page = await newPage();
    await page.goto(`${base}/admin/keys`);
    await page.getByLabel('名称', { exact: true }).fill('partner-app');
    await page.getByLabel('每小时限额').fill('5000');
    await page.getByRole('button', { name: '创建密钥' }).click();
    await expect(page.locator('code.secret').textContent()).resolves.toMatch(/^tk_[A-Za-z0-9_-]{43}$/);
    await expect(page.getByRole('cell', { name: '5000' }).count()).resolves.toBe(1);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-keys');
    await page.close();
  });

  it('when the pages were shown, then the browser reported no error (no CSP refusal)', () => {
    expect(problems.filter((problem) => !/Failed to load resource: the server responded with a status of (401|409|422|201)/.test(problem))).toEqual([]);
  });
});
