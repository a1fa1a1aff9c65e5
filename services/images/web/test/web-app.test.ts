/**
 * The image web app in a real browser (Debian's Chromium through playwright-core), on the platform
 * as `npm start` runs it. One signed-in user walks through every page in order; each step checks
 * what the page shows and what the service then holds, runs axe-core, and saves a screenshot.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { screenshotDir, watchForProblems } from './support/browser';
import { sampleImage, type Scene } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'alice-password-1';
/** A hostile file name: markup, and a right-to-left override that would flip the text after it. */
const HOSTILE_NAME = '<img src=x onerror=alert(1)>\u202Egnp.exe.png';

describeWithChromium('the image web app in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let aliceToken: string;
  let shots: string;
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'web-shots-'));
  const requestedUrls: string[] = [];

  /** A screenshot of the page; the passing notices of earlier steps are left out unless they are the point. */
  const shot = async (name: string, target: Page = page, options: { notices?: boolean; fullPage?: boolean } = {}) => {
    if (!options.notices) {
      // Closed as a person would, with each notice's close button.
      const close = target.locator('.notice-close');
      // A notice may also leave on its own timer meanwhile: then there is nothing left to click.
      while ((await close.count()) > 0) await close.first().click({ timeout: 5000 }).catch(() => undefined);
    }
    await target.screenshot({ path: path.join(shots, `${name}.png`), fullPage: options.fullPage ?? false });
  };
  const expectAccessible = async (target: Page = page) => expect(await seriousAxeViolations(target)).toEqual([]);
  const nav = (name: string) => page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name, exact: true });
  const card = (name: string) => page.locator('.gallery-grid li', { has: page.locator('.card-name', { hasText: name }) });
  /**
   * Waits until the gallery shows exactly `count` cards; if it never does, the error says what the
   * page showed instead (search text, cards, alerts, status), so a failure on a busy machine can be read.
   */
  const galleryShows = async (count: number) => {
    try {
      await page.waitForFunction((expected) => document.querySelectorAll('.gallery-grid li').length === expected, count);
    } catch (error) {
      const state = await page.evaluate(() => ({
        url: location.href,
        search: document.querySelector<HTMLInputElement>('input[type=search]')?.value,
        focused: document.activeElement?.outerHTML.slice(0, 120),
        cards: [...document.querySelectorAll('.gallery-grid .card-name')].map((name) => name.textContent),
        dialogs: document.querySelectorAll('dialog').length,
        alerts: [...document.querySelectorAll('[role=alert], [role=status]')].map((node) => node.textContent),
      }));
      throw new Error(`the gallery never showed ${count} cards: ${JSON.stringify(state)}\n${String(error)}`);
    }
  };
  const listed = async (query: Record<string, string> = {}) => (await platform.api('list', { token: aliceToken, query: { limit: '100', links: '1', ...query } })).data as { total: number; list: Array<{ id: number; original_name: string; links: { markdown: string } }> };

  beforeAll(async () => {
    shots = screenshotDir(tempShots);
    platform = await startWebPlatform();
    aliceToken = (await platform.services.userAdmin.createUser({ name: 'alice', password: PASSWORD, isAdmin: true })).token;
    browser = await launchChromium({ args: ['--lang=zh-CN'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-CN', acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.baseUrl });
    ({ problems } = watchForProblems(context));
    context.on('request', (request) => requestedUrls.push(request.url()));
    page = await context.newPage();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  test('when a visitor opens /app/, then the sign-in page comes up; a wrong password gets the service\'s message and the right one opens the empty gallery', async () => {
    await page.goto(`${platform.baseUrl}/app/`);
    await page.waitForURL('**/app/sign-in');
    await expect(page.getByRole('heading', { name: '登录' }).isVisible()).resolves.toBe(true);
    await expectAccessible();
    await shot('sign-in');

    await page.getByLabel('用户名').fill('alice');
    await page.getByLabel('密码').fill('wrong-password');
    await page.getByRole('button', { name: '登录' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('用户名或密码错误');

    await page.getByLabel('密码').fill(PASSWORD);
    await page.getByRole('button', { name: '登录' }).click();
    await page.waitForURL(`${platform.baseUrl}/app/`);
    await page.getByText('还没有图片').waitFor();
    await expectAccessible();
  }, 60000);

  test('when two files are picked and one is pasted, then each shows its progress and then its links; a text file shows the service\'s refusal beside it', async () => {
    await nav('上传').click();
    await page.waitForURL('**/app/upload');
    await page.getByRole('heading', { name: '上传图片' }).waitFor();

    const input = page.locator('input[type=file]');
    await input.setInputFiles([
      { name: '西湖日落.jpg', mimeType: 'image/jpeg', buffer: await sampleImage('sunset') },
      { name: '团队合影.png', mimeType: 'image/png', buffer: await sampleImage('forest', 'png', 800, 560) },
    ]);

    // A screenshot on the clipboard, pasted with Ctrl+V, as a person would.
    const pasted = (await sampleImage('screenshot', 'png', 1200, 720)).toString('base64');
    await page.evaluate(async (base64) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': new Blob([bytes], { type: 'image/png' }) })]);
    }, pasted);
    await page.keyboard.press('Control+V');

    await input.setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image at all\n') }]);

    const done = page.locator('.upload-item[data-status=done]');
    await done.nth(2).waitFor();
    const failed = page.locator('.upload-item[data-status=failed]');
    await failed.waitFor();
    await expect(failed.locator('.upload-name').textContent()).resolves.toBe('notes.txt');
    await expect(failed.getByRole('alert').textContent()).resolves.toBe('不支持的文件类型');

    expect(await done.count()).toBe(3);
    const names = await done.locator('.upload-name').allTextContents();
    expect(names.filter((name) => name.startsWith('粘贴的图片 ') && name.endsWith('.png'))).toHaveLength(1);
    expect(names).toEqual(expect.arrayContaining(['西湖日落.jpg', '团队合影.png']));
    // Each result offers the four forms of its address, each with a copy button.
    const sunset = done.filter({ has: page.locator('.upload-name', { hasText: '西湖日落.jpg' }) });
    const stored = (await listed()).list.find((image) => image.original_name === '西湖日落.jpg')!;
    await expect(sunset.getByLabel('Markdown', { exact: true }).inputValue()).resolves.toBe(stored.links.markdown);
    for (const kind of ['链接', 'Markdown', 'HTML', 'BBCode']) expect(await sunset.getByRole('button', { name: `复制 ${kind}` }).count()).toBe(1);
    expect((await listed()).total).toBe(3);
    await expectAccessible();
    await shot('upload');
  }, 90000);

  test('when a file name carries markup and a right-to-left override, then the pages show it as text only', async () => {
    await page.locator('input[type=file]').setInputFiles([{ name: HOSTILE_NAME, mimeType: 'image/png', buffer: await sampleImage('flowers', 'png', 320, 200) }]);
    await page.locator('.upload-item[data-status=done]').nth(3).waitFor();
    await nav('图库').click();
    const hostile = page.locator('.card-name').filter({ hasText: 'onerror' });
    await hostile.waitFor();
    await expect(hostile.textContent()).resolves.toBe(HOSTILE_NAME);
    // Isolated: the override cannot flip anything outside the name.
    await expect(hostile.evaluate((element) => element.tagName)).resolves.toBe('BDI');
    expect(await page.locator('img[src="x"]').count()).toBe(0);
  }, 60000);

  test('when the gallery has images, then it shows them in a grid, searches by name, and the detail copies a Markdown link', async () => {
    // A fuller gallery, uploaded through the API as any client would.
    const more: Array<[string, Scene]> = [
      ['洱海清晨.jpg', 'lake'],
      ['城市夜景.jpg', 'city'],
      ['沙漠.jpg', 'desert'],
      ['极光 aurora.jpg', 'aurora'],
      ['花园.jpg', 'flowers'],
      ['森林小径.jpg', 'forest'],
    ];
    for (const [name, scene] of more) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await sampleImage(scene))], { type: 'image/jpeg' }), name);
      expect((await platform.api('upload', { token: aliceToken, form })).code).toBe(0);
    }
    await page.reload();
    await galleryShows(10);
    // Every thumbnail loaded (signed /api/thumb.php URLs, allowed by the CSP).
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.card-thumb img')].every((img) => img.complete && img.naturalWidth > 0));
    await expectAccessible();
    await shot('gallery');

    await page.getByLabel('搜索文件名').fill('西湖');
    await galleryShows(1);
    await expect(page.locator('.card-name').textContent()).resolves.toBe('西湖日落.jpg');

    await card('西湖日落.jpg').locator('.card-open').click();
    const dialog = page.getByRole('dialog', { name: '图片详情' });
    await dialog.waitFor();
    await dialog.locator('.detail-preview img').evaluate((img: HTMLImageElement) => img.decode());
    await dialog.getByText('960 × 640').waitFor();
    await dialog.getByRole('button', { name: '复制 Markdown' }).click();
    const markdown = await page.evaluate(() => navigator.clipboard.readText());
    const stored = (await listed()).list.find((image) => image.original_name === '西湖日落.jpg')!;
    expect(markdown).toBe(stored.links.markdown);
    expect(markdown).toMatch(/^!\[西湖日落\.jpg\]\(http:\/\/127\.0\.0\.1:\d+\/i\/\d{4}\/\d{2}\/\d{2}\/[\w-]+\.jpg\)$/);
    await expectAccessible();
    await shot('image-detail', page, { notices: true });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.classList.contains('card-open'));
    await page.getByLabel('搜索文件名').fill('');
    await galleryShows(10);
  }, 120000);

  test('when categories are created, renamed and deleted, then the list follows and the service holds the same', async () => {
    await nav('分类').click();
    await page.waitForURL('**/app/categories');
    for (const name of ['旅行', '工作截图']) {
      await page.getByLabel('新分类名称').fill(name);
      await page.getByRole('button', { name: '创建分类' }).click();
      await page.locator('.category-name', { hasText: name }).waitFor();
    }
    await page.getByRole('button', { name: '重命名「工作截图」' }).click();
    await page.getByLabel('重命名「工作截图」').fill('工作');
    await page.getByRole('button', { name: '保存' }).click();
    await page.locator('.category-name', { hasText: /^工作$/ }).waitFor();
    await page.getByRole('button', { name: '删除 工作' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '删除' }).click();
    await page.locator('.category-name', { hasText: /^工作$/ }).waitFor({ state: 'detached' });

    const categories = (await platform.api('categories', { token: aliceToken })).data.list as Array<{ name: string }>;
    expect(categories.map((category) => category.name)).toEqual(['默认分类', '旅行']);
    await expectAccessible();
    await shot('categories');
  }, 60000);

  test('when an image is moved to a new category, then the category filter finds it there', async () => {
    await nav('图库').click();
    await card('西湖日落.jpg').waitFor();
    await page.getByLabel('选择 西湖日落.jpg').check();
    await page.getByLabel('移动到').selectOption({ label: '旅行' });
    await page.getByRole('button', { name: '移动', exact: true }).click();
    await page.getByText('已移动 1 张到「旅行」').waitFor();

    await page.getByLabel('分类', { exact: true }).selectOption({ label: '旅行 (1)' });
    await galleryShows(1);
    await expect(page.locator('.card-name').textContent()).resolves.toBe('西湖日落.jpg');
    const travel = ((await platform.api('categories', { token: aliceToken })).data.list as Array<{ id: number; name: string }>).find((category) => category.name === '旅行')!;
    expect((await listed({ category_id: String(travel.id) })).list.map((image) => image.original_name)).toEqual(['西湖日落.jpg']);
    await page.getByLabel('分类', { exact: true }).selectOption({ label: '全部分类' });
    await galleryShows(10);
  }, 60000);

  test('when an image is deleted, then it waits in the bin with its purge date; restored, it is back; deleted and purged, it is gone', async () => {
    await page.getByLabel('选择 团队合影.png').check();
    await page.getByRole('button', { name: '删除所选' }).click();
    // A bulk action asks first, as deleting one image does; cancelled, nothing moves.
    await expect(page.locator('dialog p').textContent()).resolves.toBe('将选中的 1 张图片移到回收站？可在回收站中恢复。');
    await page.locator('dialog').getByRole('button', { name: '取消' }).click();
    expect((await listed()).list.some((image) => image.original_name === '团队合影.png')).toBe(true);
    await page.getByRole('button', { name: '删除所选' }).click();
    await page.locator('dialog [data-confirm]').click();
    await card('团队合影.png').waitFor({ state: 'detached' });
    expect((await listed()).list.some((image) => image.original_name === '团队合影.png')).toBe(false);

    await nav('回收站').click();
    await page.waitForURL('**/app/bin');
    const row = page.locator('.bin-item', { has: page.locator('.bin-name', { hasText: '团队合影.png' }) });
    await row.waitFor();
    await expect(row.textContent()).resolves.toMatch(/彻底删除于\d{4}-\d{2}-\d{2} \d{2}:\d{2} (UTC|GMT[+-]\d+(:\d{2})?)/);
    await expectAccessible();
    await shot('bin');

    await row.getByRole('button', { name: '恢复' }).click();
    await page.getByText('回收站是空的').waitFor();
    expect((await listed()).list.some((image) => image.original_name === '团队合影.png')).toBe(true);

    await nav('图库').click();
    await card('团队合影.png').locator('.card-open').click();
    await page.getByRole('dialog', { name: '图片详情' }).getByRole('button', { name: '移到回收站' }).click();
    await page.locator('dialog [data-confirm]').click();
    await card('团队合影.png').waitFor({ state: 'detached' });

    await nav('回收站').click();
    await row.getByRole('button', { name: '彻底删除' }).click();
    await expect(page.locator('dialog p').textContent()).resolves.toBe('彻底删除 1 张图片？此操作无法撤销。');
    await page.locator('dialog [data-confirm]').click();
    await page.getByText('回收站是空的').waitFor();
    expect((await platform.api('trash', { token: aliceToken })).data.total).toBe(0);
    expect((await listed()).list.some((image) => image.original_name === '团队合影.png')).toBe(false);
    await expectAccessible();
  }, 90000);

  test('when the account page is open, then it shows the group, limit and usage, the token masked until asked; a reset token stops the old one at once', async () => {
    await nav('账户').click();
    await page.waitForURL('**/app/account');
    await expect(page.locator('[data-fact=group]').textContent()).resolves.toBe('default');
    await expect(page.locator('[data-fact=max-file-size]').textContent()).resolves.toBe('10 MB');
    const profile = (await platform.api('profile', { token: aliceToken })).data as { used_bytes: number };
    expect(profile.used_bytes).toBeGreaterThan(0);
    const usage = page.getByRole('progressbar', { name: '存储空间' });
    await expect(usage.getAttribute('value')).resolves.toBe(String(profile.used_bytes));
    await expect(usage.getAttribute('max')).resolves.toBe(String(1024 * 1024 * 1024));
    await expect(page.locator('.usage-text').textContent()).resolves.toMatch(/^已用 \d+ KB \/ 共 1 GB · 已用 <1%$/);

    const tokenField = page.getByRole('textbox', { name: 'API 令牌', exact: true });
    const masked = await tokenField.inputValue();
    expect(masked).toContain('•');
    expect(masked).not.toContain(aliceToken.slice(4, -4));
    await expectAccessible();
    await shot('account', page, { fullPage: true });
    await page.getByRole('button', { name: '显示' }).click();
    await expect(tokenField.inputValue()).resolves.toBe(aliceToken);

    await page.getByRole('button', { name: '重置令牌' }).click();
    await page.locator('dialog [data-confirm]').click();
    await page.getByText('令牌已重置，旧令牌已失效').waitFor();
    const fresh = await tokenField.inputValue();
    expect(fresh).not.toBe(aliceToken);
    expect(await platform.api('list', { token: aliceToken })).toEqual({ code: 1, msg: '请先登录' });
    expect((await platform.api('list', { token: fresh })).code).toBe(0);
    aliceToken = fresh;

    // A named token, shown once, that works.
    await page.getByLabel('令牌名称').fill('备份脚本');
    await page.getByRole('button', { name: '创建令牌' }).click();
    const once = page.getByLabel('备份脚本', { exact: true });
    await once.waitFor();
    expect((await platform.api('profile', { token: await once.inputValue() })).code).toBe(0);

    // The ShareX configuration: a file that uploads with a token of its own.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: '下载 ShareX 配置（.sxcu）' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.sxcu$/);
    const sxcu = JSON.parse(readFileSync((await file.path())!, 'utf8')) as { RequestURL: string; Headers: Record<string, string>; FileFormName: string };
    expect(sxcu.RequestURL).toBe(`${platform.baseUrl}/api/image.php?action=upload&http_errors=1`);
    expect(sxcu.FileFormName).toBe('file');
    expect((await platform.api('profile', { token: sxcu.Headers['X-API-Token'] })).code).toBe(0);
    await page.locator('.token-name', { hasText: /^ShareX / }).waitFor();
  }, 90000);

  test('when an admin creates a user, then the user can sign in; disabled, the user cannot', async () => {
    await nav('管理').click();
    await page.waitForURL('**/app/admin');
    await page.getByLabel('用户名', { exact: true }).fill('bob');
    await page.getByLabel('密码', { exact: true }).fill('bob-password-1');
    await page.getByLabel('会员组', { exact: true }).selectOption({ label: 'vip' });
    await page.getByRole('button', { name: '创建用户' }).click();
    const bob = page.locator('tr[data-user=bob]');
    await bob.waitFor();
    const vip = (await platform.services.admin.listGroups()).list.find((group) => group.name === 'vip')!;
    await expect(bob.getByLabel('bob 的会员组').inputValue()).resolves.toBe(String(vip.id));
    expect((await platform.api('login', { form: { username: 'bob', password: 'bob-password-1' } })).code).toBe(0);
    await expectAccessible();
    await shot('admin-users');

    await bob.getByRole('button', { name: '停用 bob' }).click();
    await expect(page.locator('dialog p').textContent()).resolves.toBe('停用用户「bob」？其所有令牌和登录会立即失效，可随时重新启用。');
    await page.locator('dialog [data-confirm]').click();
    await bob.getByText('已停用').waitFor();
    expect(await platform.api('login', { form: { username: 'bob', password: 'bob-password-1' } })).toEqual({ code: 1, msg: '账号已停用' });

    await page.getByRole('tab', { name: '会员组' }).click();
    await page.getByLabel('组名').fill('team');
    await page.getByLabel('单张上限 (MiB)').fill('20');
    await page.getByLabel('容量 (GiB)').fill('5');
    await page.getByRole('button', { name: '创建会员组' }).click();
    const team = page.locator('tr[data-group=team]');
    await team.waitFor();
    await expect(team.textContent()).resolves.toBe('team20 MB5 GB否0编辑');
    await expectAccessible();
    await shot('admin-groups');
  }, 90000);

  test('when the language is switched, then the pages speak English, the service\'s messages too, and the choice is kept', async () => {
    await nav('图库').click();
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await page.getByRole('heading', { name: /^Gallery/ }).waitFor();
    // The page's lang follows the render (an effect): wait for it rather than read it at once.
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await page.reload();
    await page.getByRole('navigation').getByRole('link', { name: 'Upload', exact: true }).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.card-thumb img')].every((img) => img.complete && img.naturalWidth > 0));
    await expectAccessible();
    await shot('gallery-en');
    await page.getByRole('navigation').getByRole('link', { name: 'Upload', exact: true }).click();
    await page.locator('input[type=file]').setInputFiles([{ name: 'drawing.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') }]);
    await expect(page.locator('.upload-item[data-status=failed]').getByRole('alert').textContent()).resolves.toBe('Unsupported file type');
    await page.getByRole('button', { name: '切换到中文' }).click();
    await page.getByRole('heading', { name: '上传图片' }).waitFor();
  }, 60000);

  afterEach(async () => {
    // The tests share one page: whatever a test left, the next one starts in Chinese, as a new visitor does.
    // (A page that never opened the app, about:blank, has no storage to read.)
    if (await page.evaluate(() => localStorage.getItem('imagehost.lang') === 'en').catch(() => false)) {
      await page.evaluate(() => localStorage.removeItem('imagehost.lang'));
      await page.reload();
      await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    }
  });

  test('when the app is used from the keyboard, then a skip link leads to the content and the detail dialog opens with Enter and closes with Escape', async () => {
    await nav('图库').click();
    await page.locator('.gallery-grid li').first().waitFor();
    await page.reload();
    await page.locator('.gallery-grid li').first().waitFor();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('跳到主要内容');
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('main');
    // Through the page's controls to the first image.
    for (let presses = 0; presses < 12; presses++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.classList.contains('card-open'))) break;
    }
    await expect(page.evaluate(() => document.activeElement?.classList.contains('card-open'))).resolves.toBe(true);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: '图片详情' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Focus goes back to the card that opened the dialog (as the dialog's unmount runs).
    await page.waitForFunction(() => document.activeElement?.classList.contains('card-open'));
  }, 60000);

  test('when the app is opened on a phone-sized screen, then nothing runs off the side and every page stays usable', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [route, name] of [
        ['', 'phone-gallery'],
        ['upload', 'phone-upload'],
        ['account', 'phone-account'],
      ] as const) {
        await phone.goto(`${platform.baseUrl}/app/${route}`);
        await phone.locator('h1').waitFor();
        if (route === '') await phone.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.card-thumb img')].slice(0, 4).every((img) => img.complete && img.naturalWidth > 0));
        if (route === 'account') await phone.locator('[data-fact=group]').waitFor();
        const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect([route, overflow]).toEqual([route, 0]);
        await expectAccessible(phone);
        await shot(name, phone);
      }
    } finally {
      await phone.close();
    }
  }, 90000);

  test('when the user signs out, then the session no longer works and the sign-in page is back', async () => {
    const session = await page.evaluate(() => JSON.parse(localStorage.getItem('imagehost.session') ?? 'null') as { token: string } | null);
    expect(session?.token).toMatch(/^\S{20,}$/);
    expect((await platform.api('profile', { token: session!.token })).code).toBe(0);
    await page.getByRole('button', { name: '退出登录' }).click();
    await page.waitForURL('**/app/sign-in');
    expect(await platform.api('profile', { token: session!.token })).toEqual({ code: 1, msg: '请先登录' });
    expect(await page.evaluate(() => localStorage.getItem('imagehost.session'))).toBeNull();

    // No credential and no password ever travelled in a URL, and nothing was refused by the CSP.
    for (const secret of [session!.token, aliceToken, PASSWORD]) expect(requestedUrls.filter((url) => url.includes(secret))).toEqual([]);
    expect(problems).toEqual([]);
  }, 60000);
});
