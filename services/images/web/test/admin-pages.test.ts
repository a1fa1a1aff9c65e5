/**
 * The admin's images and site settings tabs in Chromium: find another user's images by filter, bin
 * and purge the selected ones after a confirmation (the owner's used bytes follow), see group counts
 * follow a user's move, and edit the site settings; with an environment variable set, the setting is
 * shown as fixed. Each step runs axe-core and saves a screenshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, screenshotDir, signInThroughForm } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'root-password-1';

describeWithChromium('the admin images and settings tabs in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let shots: string;
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'admin-shots-'));

  const shot = async (name: string, target: Page = page) => {
    const close = target.locator('.notice-close');
    while ((await close.count()) > 0) await close.first().click({ timeout: 5000 }).catch(() => undefined);
    await target.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  };
  const expectAccessible = async (target: Page = page) => expect(await seriousAxeViolations(target)).toEqual([]);

  async function signIn(target: Page, on: WebPlatform) {
    await signInThroughForm(target, on.baseUrl, { name: 'root', password: PASSWORD });
    await target.goto(`${on.baseUrl}/app/admin`);
  }

  async function upload(token: string, name: string, bytes: Buffer, type: string) {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
    const answer = await platform.api('upload', { token, form });
    expect(answer).toMatchObject({ code: 0 });
    return answer.data as { id: number; file_size: number };
  }

  beforeAll(async () => {
    shots = screenshotDir(tempShots);
    platform = await startWebPlatform();
    await platform.services.userAdmin.createUser({ name: 'root', password: PASSWORD, isAdmin: true });
    ({ browser, context, page, problems } = await openAppBrowser({ viewport: { width: 1280, height: 900 } }));
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  test('when an admin filters every image by user and type, selects one and bins then purges it after confirming, then the owner bin and used bytes follow', async () => {
    const bob = await platform.services.userAdmin.createUser({ name: 'bob', password: 'bob-password-1' });
    const carol = await platform.services.userAdmin.createUser({ name: 'carol', password: 'carol-password-1' });
    const beach = await upload(bob.token, '海滩.png', await sampleImage('sunset', 'png', 320, 200), 'image/png');
    const lake = await upload(bob.token, 'lake.jpg', await sampleImage('lake', 'jpeg', 320, 200), 'image/jpeg');
    await upload(carol.token, 'city.png', await sampleImage('city', 'png', 320, 200), 'image/png');
    const bobUsed = async () => (await platform.services.admin.listUsers({ page: 1, limit: 10, keyword: 'bob' })).list[0]!.used_bytes;
    expect(await bobUsed()).toBe(beach.file_size + lake.file_size);

    await signIn(page, platform);
    await page.getByRole('tab', { name: '全部图片' }).click();
    const rows = page.locator('tbody tr[data-image-id]');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-image-id]').length === 3);

    await page.getByLabel('用户名', { exact: true }).fill('bob');
    await page.getByLabel('类型', { exact: true }).selectOption('png');
    await page.getByRole('button', { name: '筛选', exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr[data-image-id]').length === 1);
    const row = page.locator(`tr[data-image-id="${beach.id}"]`);
    await expect(row.textContent()).resolves.toContain('bob');
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('tbody img')].every((img) => img.complete && img.naturalWidth > 0));
    await expectAccessible();
    await shot('admin-images-filtered');

    await row.getByLabel('选择 海滩.png').check();
    await page.getByRole('button', { name: '移到回收站' }).click();
    await expect(page.locator('dialog p').textContent()).resolves.toBe('将 1 张图片移入其所有者的回收站？所有者可以恢复。');
    await expectAccessible();
    await page.locator('dialog [data-confirm]').click();
    await row.getByText('回收站').waitFor();
    const bobBin = await platform.api('trash', { token: bob.token });
    expect(bobBin.data.list.map((item: { id: number }) => item.id)).toEqual([beach.id]);
    expect(await bobUsed()).toBe(beach.file_size + lake.file_size);

    await row.getByLabel('选择 海滩.png').check();
    await page.getByRole('button', { name: '彻底删除' }).click();
    await expect(page.locator('dialog p').textContent()).resolves.toBe('彻底删除 1 张图片（包括未在回收站中的）？此操作无法撤销，所有者的已用空间会相应减少。');
    await page.locator('dialog [data-confirm]').click();
    await page.getByText('没有符合条件的图片').waitFor();
    expect(await rows.count()).toBe(0);
    expect(await bobUsed()).toBe(lake.file_size);
    expect((await platform.api('trash', { token: bob.token })).data.total).toBe(0);
    await expectAccessible();
  }, 120000);

  test('when an admin moves a user to another group, then the groups tab counts follow without a reload', async () => {
    const counts = async () => {
      await page.getByRole('tab', { name: '会员组' }).click();
      const vipRow = page.locator('tr[data-group=vip] td').nth(3);
      return vipRow.textContent();
    };
    await expect(counts()).resolves.toBe('0');
    await page.getByRole('tab', { name: '用户' }).click();
    const vip = (await platform.services.admin.listGroups()).list.find((group) => group.name === 'vip')!;
    await page.getByLabel('bob 的会员组').selectOption(String(vip.id));
    await page.locator('.notice', { hasText: '已更新用户 bob' }).waitFor();
    await page.getByRole('tab', { name: '会员组' }).click();
    await page.locator('tr[data-group=vip] td', { hasText: /^1$/ }).waitFor();
    await expect(counts()).resolves.toBe('1');
  }, 60000);

  test('when an admin saves the site settings, then registration opens into the chosen group and the name is what features answers', async () => {
    await page.getByRole('tab', { name: '站点设置' }).click();
    await page.getByLabel('站点名称').fill('小站图床');
    await page.getByLabel('开放注册').check();
    await page.getByLabel('新用户的会员组').selectOption('vip');
    await expectAccessible();
    await page.getByRole('button', { name: '保存' }).click();
    await page.locator('.notice', { hasText: '站点设置已保存' }).waitFor();
    expect((await platform.api('features')).data).toEqual({ registration: true, site_name: '小站图床' });
    const registered = await platform.api('register', { form: { username: 'dave', password: 'dave-password-1' } });
    expect((await platform.api('profile', { token: registered.data.token })).data.group).toBe('vip');
    await shot('admin-settings');
    expect(problems).toEqual([]);
  }, 60000);

  test('when SITE_NAME is set, then the settings tab shows it as fixed by the environment and the other settings stay editable', async () => {
    const fixed = await startWebPlatform({ SITE_NAME: 'Env 图床' });
    const other = await context.newPage();
    try {
      await fixed.services.userAdmin.createUser({ name: 'root', password: PASSWORD, isAdmin: true });
      await signIn(other, fixed);
      await other.getByRole('tab', { name: '站点设置' }).click();
      const name = other.getByLabel('站点名称');
      await expect(name.inputValue()).resolves.toBe('Env 图床');
      // The site's name is the app's name in the header and the title.
      await expect(other.locator('.brand').textContent()).resolves.toBe('Env 图床');
      await other.waitForFunction(() => document.title.endsWith(' · Env 图床'));
      await expect(name.getAttribute('readonly')).resolves.not.toBeNull();
      await expect(other.locator('[data-fixed-by=SITE_NAME]').textContent()).resolves.toBe('由环境变量 SITE_NAME 决定，不能在此修改');
      await expect(other.getByLabel('开放注册').isDisabled()).resolves.toBe(false);
      await other.getByLabel('开放注册').check();
      await other.getByRole('button', { name: '保存' }).click();
      await other.locator('.notice', { hasText: '站点设置已保存' }).waitFor();
      expect((await fixed.api('features')).data).toEqual({ registration: true, site_name: 'Env 图床' });
      await expectAccessible(other);
      await shot('admin-settings-fixed', other);
    } finally {
      await other.close();
      await fixed.close();
    }
    expect(problems).toEqual([]);
  }, 120000);
});
