/// <reference lib="dom" />
/**
 * In Chromium (playwright-core): an editor puts a category under another and previews, then saves, the ads
 * config; tags a tool (its tag page then lists it, in Chinese and English); changes a key's hourly limit; a
 * key's requests per hour; the site's parent category page and a tag page in light and dark. axe-core
 * finds no serious or critical violation on any of them. Screenshots go to ADMIN_SCREENSHOT_DIR
 * (`npm run screenshots:admin` sets docs/screenshots), else a temp folder.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { useAdminSite } from './support/browser-site';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { createKey, smallCatalog } from './support/harness';

describeWithChromium('category tree, tags, ads and key hours in Chromium', () => {
  const site = useAdminSite({
    shotPrefix: 'admin-shots-',
    catalog: {
      categories: [...smallCatalog.categories, { slug: 'frontend', name: '前端', icon: '🧩', parent: 'developer' }],
      tools: [
        ...smallCatalog.tools,
        { slug: 'vite', name: 'Vite', description: '下一代前端构建工具', url: 'https://vite.dev', category: 'frontend', tags: ['构建', '编辑器'] },
      ],
    },
  });
  const newPage = (colorScheme: 'light' | 'dark' = 'light') => site.newPage({ colorScheme });

  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousAxeViolations(page)).toEqual([]);
  }

  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(site.shotDir, `${name}.png`), fullPage: true });

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${site.base}/admin/`);
    await page.getByLabel('用户名').fill('alice');
    await page.getByLabel('密码').fill('correct horse');
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL(`${site.base}/admin/tools`);
  }

  it('when an editor puts a category under another, then the site nests it; the parent page and a tag page pass axe in light and dark', async () => {
    const page = await newPage();
    await signIn(page);
    await page.goto(`${site.base}/admin/categories/new`);
    await page.getByLabel('名称', { exact: true }).fill('数据库');
    await page.getByLabel('Slug（网址名）').fill('database');
    await page.getByLabel('上级分类').selectOption({ label: '开发工具' });
    await expectAccessible(page);
    await shoot(page, 'directory-admin-category-form');
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(`${site.base}/admin/categories?done=saved`);
    await expect(page.locator('td.subcategory').count()).resolves.toBe(2);
    await expectAccessible(page);

    for (const scheme of ['light', 'dark'] as const) {
      const visitor = await newPage(scheme);
      await visitor.goto(`${site.base}/`);
      await expect(visitor.locator('.side-index__sublist .side-index__name').allTextContents()).resolves.toEqual(['前端', '数据库']);
      await expectAccessible(visitor);
      await visitor.goto(`${site.base}/category/developer`);
      await expect(visitor.locator('#subcategories-heading').textContent()).resolves.toBe('子分类');
      await expect(visitor.locator('#main .tool-card[data-slug="vite"]').count()).resolves.toBe(1);
      await expectAccessible(visitor);
      await shoot(visitor, scheme === 'light' ? 'category-parent' : 'category-parent-dark');
      await visitor.getByRole('link', { name: 'Vite 的详情' }).click();
      await visitor.getByRole('link', { name: '标签“编辑器”的全部工具' }).click();
      await visitor.waitForURL(`${site.base}/tag/${encodeURIComponent('编辑器')}`);
      await expect(visitor.locator('#main .tool-card').count()).resolves.toBe(2);
      await expectAccessible(visitor);
      await shoot(visitor, scheme === 'light' ? 'tag' : 'tag-dark');
    }
  });

  it('when an editor previews and saves the ads config, then the preview shows the banner and the page passes axe', async () => {
    const page = await newPage();
    await signIn(page);
    await page.goto(`${site.base}/admin/ads`);
    await expectAccessible(page);
    await page.getByLabel('启用横幅广告').check();
    await page.getByLabel('横幅广告位 ID').fill('adunit-123');
    await page.getByLabel('启用原生广告').check(); // without its unit id: refused at the field
    await page.getByRole('button', { name: '预览' }).click();
    await expect(page.locator('#field-native\\.unit_id-error').textContent()).resolves.toBe('启用时必须填写广告位 ID');
    await expectAccessible(page);
    await page.getByLabel('原生广告位 ID').fill('adunit-456');
    await page.getByRole('button', { name: '预览' }).click();
    await expect(page.locator('[data-ad="banner"]').count()).resolves.toBe(1);
    await expect(page.locator('[data-ad="native"]').count()).resolves.toBe(1);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-ads');
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(`${site.base}/admin/ads?done=saved`);
    expect((await request(site.base).get('/api/index.php?action=miniapp&type=ads')).body.data.native).toEqual({ unit_id: 'adunit-456', enabled: true });
  });

  it('when an editor tags a tool in the admin, then its tag page lists it in light, dark and English, each passing axe', async () => {
    const page = await newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'GitHub', exact: true }).click();
    await expect(page.getByLabel('标签').inputValue()).resolves.toBe('git');
    await page.getByLabel('标签').fill('git, 代码托管');
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(`${site.base}/admin/tools?done=saved`);
    await expectAccessible(page);

    const tagPath = `/tag/${encodeURIComponent('代码托管')}`;
    for (const scheme of ['light', 'dark'] as const) {
      const visitor = await newPage(scheme);
      await visitor.goto(`${site.base}/tool/github`);
      await visitor.getByRole('link', { name: '标签“代码托管”的全部工具' }).click();
      await visitor.waitForURL(`${site.base}${tagPath}`);
      await expect(visitor.locator('#main .tool-card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-slug')))).resolves.toEqual(['github']);
      await expectAccessible(visitor);
    }
    for (const scheme of ['light', 'dark'] as const) {
      const visitor = await newPage(scheme);
      await visitor.goto(`${site.base}/en/tool/github`);
      await visitor.getByRole('link', { name: 'All tools tagged “代码托管”' }).click();
      await visitor.waitForURL(`${site.base}/en${tagPath}`);
      await expect(visitor.locator('html').getAttribute('lang')).resolves.toBe('en');
      await expect(visitor.locator('#main .tool-card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-slug')))).resolves.toEqual(['github']);
      await expectAccessible(visitor);
      await shoot(visitor, scheme === 'light' ? 'tag-en' : 'tag-en-dark');
    }
  });

  it('when an editor changes a key\'s hourly limit, then a bad one is refused on the field and the list shows the new one; each page passes axe', async () => {
    const { id } = await createKey(site.harness.db, { name: 'partner', rateLimitPerHour: 50 });
    const page = await newPage();
    await signIn(page);
    await page.goto(`${site.base}/admin/keys`);
    await page.getByRole('link', { name: /改限额\s*：partner/ }).click();
    await page.waitForURL(`${site.base}/admin/keys/${id}/limit`);
    await expect(page.getByLabel('每小时限额').inputValue()).resolves.toBe('50');
    await expectAccessible(page);
    await page.getByLabel('每小时限额').fill('0');
    await page.getByRole('button', { name: '保存' }).click();
    await expect(page.locator('#field-limit-error').textContent()).resolves.toBe('限额必须是正整数，或留空');
    await expect(page.getByLabel('每小时限额').getAttribute('aria-invalid')).resolves.toBe('true');
    await expectAccessible(page);
    await shoot(page, 'directory-admin-key-limit');
    await page.getByLabel('每小时限额').fill('7');
    await page.getByRole('button', { name: '保存' }).click();
    await page.waitForURL(`${site.base}/admin/keys?done=limit&key=${id}`);
    await expect(page.getByRole('status').textContent()).resolves.toBe('密钥「partner」的每小时限额已改为 7。');
    await expect(page.getByRole('row', { name: /partner/ }).locator('td.num').first().textContent()).resolves.toBe('7');
    await expectAccessible(page);
  });

  it("when a key has been used, then its requests per hour page shows them and passes axe", async () => {
    const { apiKey, id } = await createKey(site.harness.db, { name: 'mini-program' });
    for (let i = 0; i < 3; i++) await request(site.base).get('/api/index.php?action=stats').set('X-API-Key', apiKey);
    const page = await newPage();
    await signIn(page);
    await page.goto(`${site.base}/admin/keys`);
    await expectAccessible(page);
    await page.getByRole('link', { name: /按小时查看（mini-program）/ }).click();
    await page.waitForURL(`${site.base}/admin/keys/${id}/usage`);
    await expect(page.locator('.usage-chart rect').count()).resolves.toBe(1);
    await expectAccessible(page);
    await shoot(page, 'directory-admin-key-usage');
  });
});
