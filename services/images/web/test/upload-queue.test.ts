/**
 * The upload queue on a slow line (Chromium's own throttling through the DevTools protocol): it
 * lives above the pages, so leaving for the gallery mid-upload loses nothing; the page checks size,
 * space and empty files before sending; cancel and retry; a retry never stores a file twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { screenshotDir, signInThroughForm, watchForProblems } from './support/browser';
import { sampleImage, type Scene } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'queue-password-1';
const MIB = 1024 * 1024;
const SCENES: Scene[] = ['sunset', 'lake', 'forest', 'city', 'desert', 'aurora', 'flowers', 'screenshot'];

describeWithChromium('the upload queue in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const tokens: Record<string, string> = {};
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'queue-shots-'));
  let shots: string;
  const uploadRequests: string[] = [];

  const listed = async (name: string) =>
    (await platform.api('list', { token: tokens[name], query: { limit: '100' } })).data as { total: number; list: Array<{ original_name: string }> };

  async function signIn(name: string): Promise<void> {
    await signInThroughForm(page, platform.baseUrl, { name, password: PASSWORD });
    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '上传', exact: true }).click();
    await page.getByRole('heading', { name: '上传图片' }).waitFor();
    await page.locator('[data-fact=space-left]').waitFor();
  }

  beforeAll(async () => {
    shots = screenshotDir(tempShots);
    platform = await startWebPlatform();
    await platform.services.userAdmin.createGroup({ name: 'small', maxFileSize: MIB, quotaBytes: 3 * MIB });
    tokens.alice = (await platform.services.userAdmin.createUser({ name: 'alice', password: PASSWORD })).token;
    tokens.bob = (await platform.services.userAdmin.createUser({ name: 'bob', password: PASSWORD, groupName: 'small' })).token;
    browser = await launchChromium({ args: ['--lang=zh-CN'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'zh-CN' });
    ({ problems } = watchForProblems(context));
    context.on('request', (request) => {
      if (request.url().includes('action=upload')) uploadRequests.push(request.headers()['idempotency-key'] ?? '');
    });
    page = await context.newPage();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  test('when the user leaves for the gallery mid-upload on a slow line, then the queue keeps running and shows n / N there, and every file is stored once', async () => {
    await signIn('alice');
    const files = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => ({ name: `slow-${String(i + 1).padStart(2, '0')}.jpg`, mimeType: 'image/jpeg', buffer: await sampleImage(SCENES[i % SCENES.length]!, 'jpeg', 1600, 1100) })),
    );
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    // 300 kbit/s up (the report had 750): the twelve files (about half a megabyte) take over ten seconds, so uploads still run after the checks below on a busy machine.
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: 300_000 / 8, uploadThroughput: 300_000 / 8 });
    const totalBytes = files.reduce((sum, file) => sum + file.buffer.length, 0);
    expect(totalBytes).toBeGreaterThan(400_000);

    await page.locator('input[type=file]').setInputFiles(files);
    await page.waitForFunction(() => document.querySelectorAll('.upload-item[data-status=done]').length >= 1);
    await expect(page.locator('[data-upload-counter]').textContent()).resolves.toMatch(/^已上传 \d+ \/ 12$/);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.screenshot({ path: path.join(shots, 'upload-queue.png') });

    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '图库', exact: true }).click();
    await page.waitForURL(`${platform.baseUrl}/app/`);
    const status = page.locator('[data-upload-status]');
    await expect(status.textContent()).resolves.toMatch(/^上传中 \d+ \/ 12$/);
    await page.screenshot({ path: path.join(shots, 'upload-queue-elsewhere.png') });

    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '上传', exact: true }).click();
    await page.waitForURL('**/app/upload');
    // Still listed, still running: nothing was lost on the way.
    await expect(page.locator('.upload-item').count()).resolves.toBe(12);
    await page.waitForFunction(() => document.querySelectorAll('.upload-item[data-status=done]').length === 12, undefined, { timeout: 120000 });
    await expect(page.locator('[data-upload-counter]').textContent()).resolves.toBe('已上传 12 / 12');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

    const stored = await listed('alice');
    expect(stored.total).toBe(12);
    expect(new Set(stored.list.map((item) => item.original_name)).size).toBe(12);
    expect(new Set(uploadRequests).size).toBe(12);
  }, 180000);

  test('when the answer to an upload is lost and the user retries, then the same Idempotency-Key is sent and the file is stored once', async () => {
    const before = (await listed('alice')).total;
    uploadRequests.length = 0;
    // The service stores the file; the browser never sees the answer.
    await page.route('**/api/image.php?action=upload', async (route) => {
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.locator('input[type=file]').setInputFiles([{ name: 'lost-answer.jpg', mimeType: 'image/jpeg', buffer: await sampleImage('lake') }]);
    const item = page.locator('.upload-item', { hasText: 'lost-answer.jpg' });
    await item.locator('[role=alert]').waitFor();
    await page.unroute('**/api/image.php?action=upload');
    await item.getByRole('button', { name: '重试上传 lost-answer.jpg' }).click();
    await page.locator('.upload-item[data-status=done]', { hasText: 'lost-answer.jpg' }).waitFor();

    expect((await listed('alice')).total).toBe(before + 1);
    expect(uploadRequests).toHaveLength(2);
    expect(uploadRequests[0]).toBe(uploadRequests[1]);
  }, 60000);

  test('when uploads run and the tab is closed, then the browser asks first; cancel all stops them and the counter leaves them out', async () => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 200, downloadThroughput: 50_000, uploadThroughput: 20_000 });
    await page.getByRole('button', { name: '清除已完成' }).click();
    await page.locator('input[type=file]').setInputFiles(
      await Promise.all(['a', 'b', 'c'].map(async (letter) => ({ name: `cancel-${letter}.jpg`, mimeType: 'image/jpeg', buffer: await sampleImage('city') }))),
    );
    await page.locator('.upload-item[data-status=uploading]').first().waitFor();

    const asked = new Promise<string>((resolve) => page.once('dialog', (dialog) => {
      resolve(dialog.type());
      void dialog.dismiss();
    }));
    await page.close({ runBeforeUnload: true });
    await expect(asked).resolves.toBe('beforeunload');
    expect(page.isClosed()).toBe(false);

    await page.locator('[data-cancel-all]').click();
    await page.waitForFunction(() => document.querySelectorAll('.upload-item[data-status=cancelled]').length === 3);
    // Cancelled files are not counted: no "n / N" is left to show.
    await expect(page.locator('[data-upload-counter]').count()).resolves.toBe(0);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    // Nothing running: the tab closes without asking (checked last, below).
  }, 60000);

  test('when a file is over the limit, over the space left or empty, then it is refused before sending, with sizes that do not read as the limit', async () => {
    page = await context.newPage();
    await page.goto(`${platform.baseUrl}/app/`);
    await page.getByRole('button', { name: '退出登录' }).click();
    uploadRequests.length = 0;
    await signIn('bob');
    await expect(page.locator('.drop-hint').textContent()).resolves.toBe('或 粘贴截图（Ctrl+V）· 可一次选择多张 · 单张最大 1 MB · 剩余空间 3 MB');
    const big = Buffer.alloc(MIB + 1, 1);
    await page.locator('input[type=file]').setInputFiles([
      { name: 'over.jpg', mimeType: 'image/jpeg', buffer: big },
      { name: 'empty.png', mimeType: 'image/png', buffer: Buffer.alloc(0) },
    ]);
    const over = page.locator('.upload-item', { hasText: 'over.jpg' });
    await expect(over.locator('.upload-size').textContent()).resolves.toBe('1.1 MB');
    await expect(over.getByRole('alert').textContent()).resolves.toBe('文件大小超出限制 (1.1 MB，上限 1 MB)');
    await expect(page.locator('.upload-item', { hasText: 'empty.png' }).getByRole('alert').textContent()).resolves.toBe('文件为空（0 字节），未上传');

    // Three files of just under 1 MB fill the 3 MB quota with the ones before: the fourth is refused at once.
    // An uncompressed PNG of about 0.9 MB.
    const filler = await sharp({ create: { width: 560, height: 560, channels: 3, background: '#3a8fc1' } }).png({ compressionLevel: 0 }).toBuffer();
    expect(filler.length).toBeLessThan(MIB);
    await page.locator('input[type=file]').setInputFiles(['q1', 'q2', 'q3', 'q4'].map((name) => ({ name: `${name}.png`, mimeType: 'image/png', buffer: filler })));
    await expect(page.locator('.upload-item', { hasText: 'q4.png' }).getByRole('alert').textContent()).resolves.toMatch(/^存储空间不足 \(剩余空间 /);
    await page.waitForFunction(() => document.querySelectorAll('.upload-item[data-status=done]').length === 3, undefined, { timeout: 60000 });
    expect(uploadRequests).toHaveLength(3);
    await expect(seriousAxeViolations(page)).resolves.toEqual([]);
    await page.locator('.upload-item', { hasText: 'q4.png' }).evaluate((item) => item.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(shots, 'upload-refused-before-sending.png') });

    page.once('dialog', (dialog) => void dialog.dismiss().then(() => problems.push('asked before closing with nothing running')));
    const closed = page.waitForEvent('close');
    await page.close({ runBeforeUnload: true });
    await closed;
    expect(problems.filter((problem) => !problem.includes('net::ERR') && !problem.includes('Failed to load resource'))).toEqual([]);
  }, 120000);
});
