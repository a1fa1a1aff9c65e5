/// <reference lib="dom" />
/**
 * Submissions in a real browser (Debian's Chromium through playwright-core): a visitor with JavaScript
 * off suggests a tool on /submit (first with a mistake), an editor approves it in the admin's 投稿 queue,
 * and it is on the public site. axe-core on the form (light and dark, with errors) and on the queue.
 * Screenshots go to ADMIN_SCREENSHOT_DIR (`npm run screenshots:admin` sets docs/screenshots), else a temp folder.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { useAdminSite } from './support/browser-site';
import { ADMIN_SCRIPTS, scriptsOf } from './support/admin-scripts';


jest.setTimeout(180_000);

describeWithChromium('submissions in Chromium', () => {
  const site = useAdminSite({ shotPrefix: 'submit-shots-' });
  const newPage = site.newPage;

  /** axe-core (injected by the test) finds no serious or critical violation. */
  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(site.shotDir, `${name}.png`), fullPage: true });

  it('when the form is shown in light and dark, empty and refused, then axe-core finds no serious or critical violation', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await newPage({ colorScheme });
      await page.goto(`${site.base}/submit`);
      // The system's preference picks the theme (no data-theme until the visitor toggles): the card's colour shows which.
      await expect(page.evaluate(() => getComputedStyle(document.querySelector('.submit-page')!).backgroundColor)).resolves.toBe(colorScheme === 'light' ? 'rgb(255, 255, 255)' : 'rgb(24, 27, 36)');
      await expectAccessible(page);
      await shoot(page, colorScheme === 'light' ? 'submit' : 'submit-dark');
      await page.getByLabel('网址').fill('not a url');
      await page.getByRole('button', { name: '提交', exact: true }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('表单有 3 处需要修改');
      await expectAccessible(page);
      await shoot(page, colorScheme === 'light' ? 'submit-errors' : 'submit-errors-dark');
      await page.close();
    }
    expect(await site.harness.db('tool_submissions').count({ n: '*' }).then((rows) => Number(rows[0]!.n))).toBe(0);
  });

  it('when a visitor without JavaScript suggests a tool and an editor approves it, then it is on the public site', async () => {
    const visitor = await newPage({ javaScriptEnabled: false });
    await visitor.goto(`${site.base}/`);
    await visitor.getByRole('contentinfo').getByRole('link', { name: '提交工具' }).click();
    await visitor.waitForURL(`${site.base}/submit`);
    await visitor.getByLabel('工具名称').fill('Excalidraw');
    await visitor.getByLabel('网址').fill('excalidraw.com');
    await visitor.getByLabel('分类').selectOption({ label: '图片处理' });
    await visitor.getByLabel('简介').fill('手绘风格的在线白板');
    await visitor.getByRole('button', { name: '提交', exact: true }).click();
    await expect(visitor.locator('#submit-url-error').textContent()).resolves.toBe('网址格式不正确。');
    await expect(visitor.getByLabel('工具名称').inputValue()).resolves.toBe('Excalidraw');
    await visitor.getByLabel('网址').fill('https://excalidraw.com');
    await visitor.getByRole('button', { name: '提交', exact: true }).click();
    await visitor.waitForURL(`${site.base}/submit/thanks`);
    await expect(visitor.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('感谢提交');

    const editor = await newPage();
    await editor.goto(`${site.base}/admin/submissions`);
    await editor.getByLabel('用户名').fill('alice');
    await editor.getByLabel('密码').fill('correct horse');
    await editor.getByRole('button', { name: '登录' }).click();
    await editor.waitForURL(`${site.base}/admin/submissions`);
    await expect(editor.getByRole('navigation', { name: '管理导航' }).getByRole('link', { name: /投稿/ }).textContent()).resolves.toContain('投稿1');
    await expect(editor.getByText('手绘风格的在线白板').count()).resolves.toBe(1);
    await expect(scriptsOf(editor)).resolves.toEqual(ADMIN_SCRIPTS);
    await expectAccessible(editor);
    await shoot(editor, 'directory-admin-submissions');

    await editor.getByRole('link', { name: /^通过\s*：Excalidraw$/ }).click();
    await editor.waitForURL(`${site.base}/admin/submissions/1/approve`);
    await expect(editor.getByLabel('Slug（网址名）').inputValue()).resolves.toBe('excalidraw-com');
    await expectAccessible(editor);
    await editor.getByLabel('Slug（网址名）').fill('excalidraw');
    await editor.getByLabel('标签').fill('白板, 画图');
    await editor.getByRole('button', { name: '保存' }).click();
    await editor.waitForURL(`${site.base}/admin/submissions?done=approved`);
    await expect(editor.getByRole('status').textContent()).resolves.toBe('已通过，工具已收录。');
    await expect(editor.getByText('没有待审核的投稿。').count()).resolves.toBe(1);

    await visitor.goto(`${site.base}/category/image`);
    await expect(visitor.locator('.tool-card[data-slug="excalidraw"]').count()).resolves.toBe(1);
    await visitor.goto(`${site.base}/tool/excalidraw`);
    await expect(visitor.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Excalidraw');
  });

  it('when the pages were shown, then the browser reported no error (no CSP refusal)', () => {
    expect(site.problems.filter((problem) => !/Failed to load resource: the server responded with a status of (422)/.test(problem))).toEqual([]);
  });
});
