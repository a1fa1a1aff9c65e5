/**
 * In Chromium (playwright-core): the editors' admin in Chinese and in English (the browser's Accept-Language)
 * shows in that language what the catalog says and holds: a refused form's messages, an import's row reasons
 * (and a reason stored before message keys, as it was stored), the English names where filled in, and times
 * written the language's way (China time).
 */
import type { Page } from 'playwright-core';
import { describeWithChromium } from '@platform/kit/testing';
import { useAdminSite } from './support/browser-site';

jest.setTimeout(90_000);

const LANGS = [
  {
    lang: 'zh',
    locale: 'zh-CN',
    signIn: { name: '用户名', password: '密码', button: '登录' },
    save: '保存',
    fileLabel: '文件',
    dryRun: '试运行',
    dryRunDone: '试运行完成，尚未写入任何内容。',
    snipaste: 'Snipaste',
    image: '图片处理',
    messages: {
      slugFormat: 'slug 只能由小写字母、数字、“.”、“_”和“-”组成',
      notHttpUrl: '网址不是有效的 http(s) 网址',
      categorySlugTaken: 'slug“image”已被另一个分类使用',
      nameRequired: '名称不能为空',
      unknownCategory: '没有 slug 为“missing”的分类',
      invalidJson: '文件无法按 JSON 读取：不是有效的 JSON：',
    },
    dnsReason: '域名无法解析',
    times: { checked: '2026/11/28 12:05', submitted: '2026/11/28 00:30', imported: '2026/11/20 10:00' },
  },
  {
    lang: 'en',
    locale: 'en-US',
    signIn: { name: 'User name', password: 'Password', button: 'Sign in' },
    save: 'Save',
    fileLabel: 'File',
    dryRun: 'Dry run',
    dryRunDone: 'Dry run finished; nothing has been written yet.',
    snipaste: 'Snip & Paste',
    image: 'Images',
    messages: {
      slugFormat: 'slug must be lowercase letters, digits, ".", "_" or "-"',
      notHttpUrl: 'url is not a valid http(s) URL',
      categorySlugTaken: 'slug "image" is already used by another category',
      nameRequired: 'name is required',
      unknownCategory: 'unknown category "missing"',
      invalidJson: 'The file cannot be read as JSON: not valid JSON: ',
    },
    dnsReason: 'The domain does not resolve',
    times: { checked: 'Nov 28, 2026, 12:05', submitted: 'Nov 28, 2026, 00:30', imported: 'Nov 20, 2026, 10:00' },
  },
] as const;

/** A report stored before message keys: its reasons are plain English strings. */
const OLD_REPORT = {
  categories: { created: 0, updated: 0, unchanged: 0, rejected: [] },
  tools: { created: 0, updated: 0, unchanged: 0, rejected: [{ row: 1, slug: 'old-row', reason: 'name is required' }] },
  skipped: 0,
  rows: [{ kind: 'tool', row: 1, slug: 'old-row', outcome: 'refused', reason: 'name is required' }],
  dryRun: true,
};

describeWithChromium('editors admin in Chinese and in English: messages, English names and times, in Chromium', () => {
  const site = useAdminSite({ shotPrefix: 'admin-i18n-shots-' });

  beforeAll(async () => {
    const db = site.harness.db;
    await db('tools').where({ slug: 'snipaste' }).update({ name_en: 'Snip & Paste' });
    await db('categories').where({ slug: 'image' }).update({ name_en: 'Images' });
    const snipaste = await db('tools').where({ slug: 'snipaste' }).first('id', 'url');
    await db('link_health').insert({
      tool_id: snipaste.id,
      url: snipaste.url,
      status: 'broken',
      reason: 'dns',
      checked_at: new Date('2026-11-28T04:05:00Z'),
      next_check_at: new Date('2026-11-29T04:05:00Z'),
      consecutive_failures: 2,
    });
    await db('tool_submissions').insert({
      name: 'Squoosh',
      url: 'https://squoosh.app',
      url_key: 'squoosh.app',
      category_slug: 'image',
      submitter_hash: 'a'.repeat(64),
      created_at: new Date('2026-11-27T16:30:00Z'),
    });
  });

  async function signedInPage(locale: string, labels: { name: string; password: string; button: string }): Promise<Page> {
    const page = await site.newPage({ locale });
    await page.goto(`${site.base}/admin/`);
    await page.getByLabel(labels.name).fill('alice');
    await page.getByLabel(labels.password).fill('correct horse');
    await page.getByRole('button', { name: labels.button }).click();
    await page.waitForURL(`${site.base}/admin/tools`);
    return page;
  }

  const textOf = (page: Page, selector: string) => page.locator(selector).textContent();

  describe.each(LANGS)('in $lang', (L) => {
    it('when a tool form and a category form are saved with bad input, then each field says what is wrong in the admin\'s language', async () => {
      const page = await signedInPage(L.locale, L.signIn);
      await page.goto(`${site.base}/admin/tools/new`);
      await page.locator('#field-name').fill('Bad');
      await page.locator('#field-slug').fill('Bad Slug');
      await page.locator('#field-url').fill('ftp://example.com');
      await page.getByRole('button', { name: L.save }).click();
      await expect(textOf(page, '#field-slug-error')).resolves.toBe(L.messages.slugFormat);
      await expect(textOf(page, '#field-url-error')).resolves.toBe(L.messages.notHttpUrl);
      await expect(page.getByRole('alert').textContent()).resolves.toContain(L.messages.notHttpUrl);
      expect(await site.harness.db('tools').where({ name: 'Bad' }).first('id')).toBeUndefined();

      await page.goto(`${site.base}/admin/categories/new`);
      await page.locator('#field-name').fill('Another');
      await page.locator('#field-slug').fill('image');
      await page.getByRole('button', { name: L.save }).click();
      await expect(textOf(page, '#field-slug-error')).resolves.toBe(L.messages.categorySlugTaken);
    });

    it('when a file with bad rows is dry-run, then each refused row gives its reason in the admin\'s language; a reason stored before keys still shows, and runs are dated the language\'s way', async () => {
      const page = await signedInPage(L.locale, L.signIn);
      await page.goto(`${site.base}/admin/import`);
      const file = {
        categories: [],
        tools: [
          { slug: 'ok-tool', name: 'OK', url: 'https://ok.example', category: 'image' },
          { slug: 'nameless', url: 'https://nameless.example', category: 'image' },
          { slug: 'no-category', name: 'No category', url: 'https://nocat.example', category: 'missing' },
        ],
      };
      await page.getByLabel(L.fileLabel, { exact: true }).setInputFiles({ name: `rows-${L.lang}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
      await page.getByRole('button', { name: L.dryRun, exact: true }).click();
      await page.waitForURL(/\/admin\/imports\/\d+$/);
      await page.getByText(L.dryRunDone).waitFor({ timeout: 60_000 });
      await expect(page.locator('.import-row--refused td:last-child').allTextContents()).resolves.toEqual([L.messages.nameRequired, L.messages.unknownCategory]);

      // Stored now (a dry run removes runs older than a week), dated in the past.
      const [row] = await site.harness
        .db('import_runs')
        .insert({ file_name: `old-${L.lang}.json`, format: 'json', dry_run: true, state: 'done', done_rows: 1, total_rows: 1, report: JSON.stringify(OLD_REPORT), created_at: new Date('2026-11-20T02:00:00Z') })
        .returning('id');
      await page.goto(`${site.base}/admin/imports/${(row as { id: number | string }).id}`);
      await expect(page.locator('.import-row--refused td:last-child').allTextContents()).resolves.toEqual(['name is required']);
      await page.goto(`${site.base}/admin/import`);
      await expect(page.getByRole('row').filter({ hasText: `old-${L.lang}.json` }).locator('td').nth(3).textContent()).resolves.toBe(L.times.imported);

      await page.getByLabel(L.fileLabel, { exact: true }).setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"tools": [') });
      await page.getByRole('button', { name: L.dryRun, exact: true }).click();
      await expect(page.locator('#import-error').textContent()).resolves.toContain(L.messages.invalidJson);
    });

    it('when lists and pickers are shown, then the English admin names a tool or category by its English name where one is filled in', async () => {
      const page = await signedInPage(L.locale, L.signIn);
      await page.goto(`${site.base}/admin/tools`);
      await expect(page.getByRole('row').filter({ hasText: 'snipaste' }).locator('td').first().locator('a').textContent()).resolves.toBe(L.snipaste);
      await expect(page.getByRole('row').filter({ hasText: 'snipaste' }).locator('td').nth(1).textContent()).resolves.toBe(L.image);
      // No English name: the Chinese one, in both languages.
      await expect(page.getByRole('row').filter({ hasText: 'vscode' }).locator('td').nth(1).textContent()).resolves.toBe('开发工具');
      await expect(page.locator('#filter-category option').allTextContents()).resolves.toContain(L.image);

      await page.goto(`${site.base}/admin/categories`);
      await expect(page.getByRole('link', { name: L.image, exact: true }).count()).resolves.toBe(1);

      const snipasteId = (await site.harness.db('tools').where({ slug: 'snipaste' }).first('id')).id;
      await page.goto(`${site.base}/admin/tools/${snipasteId}/edit`);
      await expect(page.locator('#field-category option:checked').textContent()).resolves.toBe(L.image);
      // The form still edits both names.
      await expect(page.locator('#field-name').inputValue()).resolves.toBe('Snipaste');
      await expect(page.locator('#field-name_en').inputValue()).resolves.toBe('Snip & Paste');
    });

    it('when link health and submissions are listed, then their times are China time written the admin\'s language\'s way, reasons and English names in the admin\'s language', async () => {
      const page = await signedInPage(L.locale, L.signIn);
      await page.goto(`${site.base}/admin/links?status=all`);
      const link = page.getByRole('row').filter({ hasText: 'snipaste' });
      await expect(link.locator('td').first().locator('a').textContent()).resolves.toBe(L.snipaste);
      await expect(link.locator('td').nth(3).textContent()).resolves.toBe(L.dnsReason);
      await expect(link.locator('td').nth(4).textContent()).resolves.toBe(L.times.checked);

      await page.goto(`${site.base}/admin/submissions`);
      const submission = page.getByRole('row').filter({ hasText: 'Squoosh' });
      await expect(submission.locator('td').nth(1).textContent()).resolves.toBe(L.image);
      await expect(submission.locator('td').nth(3).textContent()).resolves.toBe(L.times.submitted);
    });
  });

  it('when the pages were shown, then the browser reported no error', () => {
    expect(site.problems.filter((problem) => !/Failed to load resource: the server responded with a status of (409|422)/.test(problem))).toEqual([]);
  });
});
