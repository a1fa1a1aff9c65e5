/// <reference lib="dom" />
/**
 * The import page in a real browser (Debian's Chromium through playwright-core), no script of its own: an
 * editor uploads a bookmark file, the dry run's page reloads itself until its report shows, applying it
 * shows the final report, and the tools are on the public site. axe-core on the upload, progress and
 * report pages.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addEditor } from './support/editors';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';
import { listenOnLoopback } from './support/browser-site';
import { ADMIN_SCRIPTS, scriptsOf } from './support/admin-scripts';


jest.setTimeout(90_000);

const BOOKMARKS = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3>写作</H3>
    <DL><p>
        <DT><A HREF="https://typora.io/">Typora</A>
        <DT><A HREF="javascript:void(0)">书签小工具</A>
    </DL><p>
</DL><p>
`;

describeWithChromium('the import page in Chromium', () => {
  let harness: Harness;
  let server: http.Server;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    harness = await openHarness();
    await importJson(harness.db, smallCatalog);
    await addEditor(harness.db, 'alice', 'correct horse');
    ({ server, base } = await listenOnLoopback(harness.app({ config: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '100000' } })));
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await harness?.close();
  });

  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  it('when an editor imports a bookmark file with no script, then the dry run and the import report each row, and the tool is on the site', async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN', javaScriptEnabled: true });
    // The admin has no script of its own (CSP allows none): the run page reloads itself by meta refresh.
    await context.route((url) => url.origin !== base, (route) => route.abort('connectionrefused'));
    const page = await context.newPage();
    await page.goto(`${base}/admin/import`);
    await page.getByLabel('用户名').fill('alice');
    await page.getByLabel('密码').fill('correct horse');
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL(`${base}/admin/import`);
    await expect(scriptsOf(page)).resolves.toEqual(ADMIN_SCRIPTS);
    await expectAccessible(page);

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'import-page-')), 'bookmarks.html');
    fs.writeFileSync(file, BOOKMARKS);
    await page.getByLabel('文件').setInputFiles(file);
    await page.getByRole('button', { name: '试运行' }).click();
    await page.waitForURL(/\/admin\/imports\/\d+$/);
    // The page reloads itself (meta refresh) until the run is done.
    await page.getByText('试运行完成，尚未写入任何内容。').waitFor({ timeout: 60_000 });
    await expectAccessible(page);
    await expect(page.locator('.import-row--created').count()).resolves.toBe(2);
    await expect(page.locator('.import-row--refused').textContent()).resolves.toContain('网址不是有效的 http(s) 网址');

    await page.getByRole('button', { name: '确认导入' }).click();
    await page.getByText('导入完成。').waitFor({ timeout: 60_000 });
    await expectAccessible(page);
    await page.goto(`${base}/category/xie-zuo`);
    await expect(page.getByText('Typora').count()).resolves.toBeGreaterThan(0);
  });
});
