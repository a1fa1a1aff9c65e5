/**
 * The "connect your client" page in Chromium, on the platform as `npm start` runs it: each client's
 * settings come with a named token of their own, and the settings shown are ones that upload (the
 * Lsky plugin's server and token through /compat/lsky, the web-uploader's header through the API).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { describeWithChromium, launchChromium, seriousAxeViolations } from '@platform/kit/testing';
import { screenshotDir, signInThroughForm, watchForProblems } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'carol-password-1';

describeWithChromium('the connect-your-client page', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const tempShots = mkdtempSync(path.join(os.tmpdir(), 'connect-shots-'));

  beforeAll(async () => {
    platform = await startWebPlatform();
    await platform.services.userAdmin.createUser({ name: 'carol', password: PASSWORD });
    browser = await launchChromium({ args: ['--lang=zh-CN'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN' });
    ({ problems } = watchForProblems(context));
    page = await context.newPage();
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    rmSync(tempShots, { recursive: true, force: true });
  });

  /** Uploads a PNG as picgo-plugin-lankong V2 does, with the server and token the page gave. */
  async function uploadAsLankong(server: string, authorization: string): Promise<{ status: boolean; message: string; data: { links?: { url: string } } }> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await sampleImage('lake', 'png'))], { type: 'image/png' }), 'shot.png');
    form.append('ssl', 'true');
    const res = await fetch(`${server}/api/v1/upload`, { method: 'POST', headers: { Authorization: authorization, 'User-Agent': 'PicGo' }, body: form });
    return JSON.parse(await res.text());
  }

  test('when a signed-in user opens it from the navigation and creates the Lsky plugin settings, then they upload with a token named for the client; the web-uploader header works too', async () => {
    await signInThroughForm(page, platform.baseUrl, { name: 'carol', password: PASSWORD });

    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '连接客户端', exact: true }).click();
    await page.waitForURL('**/app/connect');
    await page.getByRole('heading', { name: '连接你的客户端' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);

    const lankong = page.locator('[data-client=picgoLsky]');
    await lankong.getByRole('button', { name: '生成设置' }).click();
    const server = await lankong.getByRole('textbox', { name: 'Server' }).inputValue();
    const token = await lankong.getByRole('textbox', { name: 'Auth token' }).inputValue();
    expect(server).toBe(`${platform.baseUrl}/compat/lsky`);
    expect(token).toMatch(/^Bearer \S{43}$/);
    const block = JSON.parse((await lankong.locator('[data-block=picgoLsky]').textContent())!) as { picBed: { lankong: { server: string; token: string } } };
    expect(block.picBed.lankong).toMatchObject({ server, token });

    const uploaded = await uploadAsLankong(server, token);
    expect(uploaded.status).toBe(true);
    expect(uploaded.data.links!.url).toMatch(new RegExp(`^${platform.baseUrl}/i/.+\\.png$`));

    const web = page.locator('[data-client=picgoWeb]');
    await web.getByRole('button', { name: '生成设置' }).click();
    const header = JSON.parse(await web.getByRole('textbox', { name: '自定义请求头 / customHeader' }).inputValue()) as Record<string, string>;
    expect((await platform.api('profile', { token: header['X-API-Token'] })).code).toBe(0);

    // Two clients, two named tokens, each named for its client.
    const session = await platform.services.auth.signIn({ name: 'carol', password: PASSWORD, address: '127.0.0.1' });
    const names = ((await platform.api('tokens', { token: session.token })).data as { list: Array<{ name: string }> }).list.map((item) => item.name);
    expect(names).toHaveLength(2);
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^PicGo \+ 兰空图床插件 \d{4}-/), expect.stringMatching(/^PicGo \/ PicList \+ web-uploader 插件 \d{4}-/)]));

    await page.screenshot({ path: path.join(screenshotDir(tempShots), 'connect.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 120000);
});
