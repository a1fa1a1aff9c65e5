/**
 * Times in the viewer's zone: the API answers `YYYY-MM-DD HH:MM:SS` in the service's zone (here
 * TIME_ZONE=Europe/Berlin, named by `login` in `time_zone`); a browser in Los Angeles sees every time
 * (gallery, detail, bin, tokens, admin) in its own zone, with the zone named.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, signInThroughForm } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'erin-password-1';

/** A Berlin wall-clock time of the API as Los Angeles reads it, written independently of the app (Swedish dates are ISO-like). */
function berlinToLosAngeles(apiTime: string): { iso: string; text: string } {
  const asUtc = Date.parse(`${apiTime.replace(' ', 'T')}Z`);
  // Europe/Berlin's offset at that moment (+1 in winter, +2 in summer).
  const berlinWall = Date.parse(`${new Date(asUtc).toLocaleString('sv-SE', { timeZone: 'Europe/Berlin' }).replace(' ', 'T')}Z`);
  const instant = new Date(asUtc - (berlinWall - asUtc));
  const zone = new Intl.DateTimeFormat('zh-CN', { timeZone: 'America/Los_Angeles', timeZoneName: 'short' }).formatToParts(instant).find((part) => part.type === 'timeZoneName')!.value;
  return { iso: instant.toISOString(), text: `${instant.toLocaleString('sv-SE', { timeZone: 'America/Los_Angeles' }).slice(0, 16)} ${zone}` };
}

describeWithChromium('times in the viewer\'s zone, in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;
  /** A session of erin's (the token and admin actions take no API token). */
  let session: string;

  const timeIn = async (selector: string) => {
    const time = page.locator(selector).first();
    await time.waitFor();
    return { iso: await time.getAttribute('datetime'), text: await time.textContent(), title: await time.getAttribute('title') };
  };

  beforeAll(async () => {
    platform = await startWebPlatform({ TIME_ZONE: 'Europe/Berlin' });
    token = (await platform.services.userAdmin.createUser({ name: 'erin', password: PASSWORD, isAdmin: true })).token;
    for (const [name, scene] of [['留下.jpg', 'lake'], ['扔掉.jpg', 'city']] as const) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await sampleImage(scene, 'jpeg', 320, 200))], { type: 'image/jpeg' }), name);
      expect((await platform.api('upload', { token, form })).code).toBe(0);
    }
    const binned = (await platform.api('list', { token })).data.list.find((item: { original_name: string }) => item.original_name === '扔掉.jpg').id as number;
    expect((await platform.api('delete', { token, form: { ids: String(binned) } })).code).toBe(0);
    session = (await platform.api('login', { form: { username: 'erin', password: PASSWORD } })).data.token;
    expect((await platform.api('create_token', { token: session, form: { name: 'PicGo' } })).code).toBe(0);

    ({ browser, context, page, problems } = await openAppBrowser({ timezoneId: 'America/Los_Angeles' }));
    await signInThroughForm(page, platform.baseUrl, { name: 'erin', password: PASSWORD });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  test('when the gallery and an image\'s detail are shown, then the upload time is Los Angeles time with its zone', async () => {
    const item = (await platform.api('list', { token })).data.list[0] as { create_time: string };
    const expected = berlinToLosAngeles(item.create_time);
    expect(expected.text).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} GMT-[78]$/);

    const card = await timeIn('.card-meta time');
    expect(card).toEqual({ iso: expected.iso, text: expected.text.slice(0, 10), title: expected.text });

    await page.locator('.card-open').first().click();
    expect(await timeIn('dialog time')).toEqual({ iso: expected.iso, text: expected.text, title: null });
    await page.keyboard.press('Escape');
  }, 60000);

  test('when the bin, the tokens and the admin\'s users are shown, then their times are Los Angeles time with its zone', async () => {
    const binned = (await platform.api('trash', { token })).data.list[0] as { delete_time: string; purge_time: string };
    await page.goto(`${platform.baseUrl}/app/bin`);
    expect((await timeIn('.bin-meta time')).text).toBe(berlinToLosAngeles(binned.delete_time).text);
    expect((await timeIn('.bin-purge time')).text).toBe(berlinToLosAngeles(binned.purge_time).text);

    const named = (await platform.api('tokens', { token: session })).data.list[0] as { create_time: string };
    await page.goto(`${platform.baseUrl}/app/account`);
    const tokenLine = page.locator('.token-list li', { hasText: 'PicGo' });
    await tokenLine.waitFor();
    expect(await tokenLine.textContent()).toContain(`创建于 ${berlinToLosAngeles(named.create_time).text}`);

    const users = (await platform.api('admin_users', { token: session })).data.list as Array<{ username: string; create_time: string }>;
    await page.goto(`${platform.baseUrl}/app/admin`);
    const row = page.locator('tr', { hasText: 'erin' });
    expect((await timeIn('tr:has-text("erin") time')).text).toBe(berlinToLosAngeles(users.find((user) => user.username === 'erin')!.create_time).text);
    expect(await row.count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, 60000);
});
