/**
 * State in the URL: the gallery's search, category and loaded pages, and the admin's tab, survive a
 * reload and a shared link; Back with an image's detail open closes the detail, not the gallery.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describeWithChromium, seriousAxeViolations } from '@platform/kit/testing';
import { openAppBrowser, signInThroughForm } from './support/browser';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const PASSWORD = 'gina-password-1';
/** One more than the gallery's page of 40. */
const PLAIN_IMAGES = 41;

describeWithChromium('state in the URL, in Chromium', () => {
  let platform: WebPlatform;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let travelId: number;
  let seaIds: number[];

  const cards = () => page.locator('.gallery-grid li');
  const cardsShown = (count: number) => page.waitForFunction((expected) => document.querySelectorAll('.gallery-grid li').length === expected, count);
  const search = () => page.getByRole('searchbox');
  const categorySelect = () => page.getByLabel('分类', { exact: true });

  beforeAll(async () => {
    platform = await startWebPlatform();
    const token = (await platform.services.userAdmin.createUser({ name: 'gina', password: PASSWORD, isAdmin: true })).token;
    const session = (await platform.api('login', { form: { username: 'gina', password: PASSWORD } })).data.token as string;
    travelId = (await platform.api('create_category', { token: session, form: { name: '旅行' } })).data.id;
    const upload = async (name: string, categoryId?: number) => {
      const form = new FormData();
      if (categoryId) form.append('category_id', String(categoryId));
      form.append('file', new Blob([new Uint8Array(await sampleImage('lake', 'png', 24 + (name.length % 7), 16))], { type: 'image/png' }), name);
      const answer = await platform.api('upload', { token, form });
      expect(answer.code).toBe(0);
      return answer.data.id as number;
    };
    for (let n = 1; n <= PLAIN_IMAGES; n++) await upload(`plain-${String(n).padStart(2, '0')}.png`);
    seaIds = [await upload('海边-旅行.png', travelId), await upload('海边-家里.png')];

    ({ browser, context, page, problems } = await openAppBrowser());
    await signInThroughForm(page, platform.baseUrl, { name: 'gina', password: PASSWORD });
    await cardsShown(40);
  }, 180000);

  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  test('when a search and a category are chosen, then they are in the URL, and a reload or the link in a new tab shows the same', async () => {
    await search().fill('海边');
    await page.waitForURL((url) => url.searchParams.get('q') === '海边');
    await cardsShown(2);
    await categorySelect().selectOption(String(travelId));
    await page.waitForURL((url) => url.searchParams.get('category') === String(travelId) && url.searchParams.get('q') === '海边');
    await cardsShown(1);
    const shared = page.url();

    await page.reload();
    await cardsShown(1);
    expect(await search().inputValue()).toBe('海边');
    expect(await categorySelect().inputValue()).toBe(String(travelId));
    expect(await page.locator('.card-name').textContent()).toBe('海边-旅行.png');

    const other = await context.newPage();
    await other.goto(shared);
    await other.locator('.gallery-grid li').first().waitFor();
    expect(await other.locator('.card-name').allTextContents()).toEqual(['海边-旅行.png']);
    await other.close();

    // Cleared again: the URL is the plain gallery.
    await categorySelect().selectOption('');
    await search().fill('');
    await page.waitForURL(`${platform.baseUrl}/app/`);
    await cardsShown(40);
  }, 60000);

  test('when a second page is loaded, then the URL says page=2 and a reload loads both pages', async () => {
    // Scrolled to the end of the grid, the next page loads (infinite scroll).
    await page.locator('.sentinel').scrollIntoViewIfNeeded();
    await cardsShown(PLAIN_IMAGES + 2);
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await page.reload();
    await cardsShown(PLAIN_IMAGES + 2);
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
  }, 60000);

  test('when an image\'s detail is open, then Back closes it and stays in the gallery; Forward opens it again; its link opens it', async () => {
    await search().fill('海边');
    await cardsShown(2);
    await page.waitForURL((url) => url.searchParams.get('q') === '海边' && !url.searchParams.has('page'));
    const before = page.url();
    await page.locator('.card-open', { hasText: '海边-家里.png' }).click();
    await page.getByRole('dialog').waitFor();
    await page.waitForURL((url) => url.searchParams.get('image') === String(seaIds[1]));
    const detailUrl = page.url();

    await page.goBack();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(page.url()).toBe(before);
    expect(await cards().count()).toBe(2);
    expect(await search().inputValue()).toBe('海边');

    await page.goForward();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByRole('dialog').locator('.detail-name').textContent()).toBe('海边-家里.png');
    // Closed with its button: the entry is gone the same way.
    await page.getByRole('dialog').getByRole('button', { name: '关闭' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(page.url()).toBe(before);

    const other = await context.newPage();
    await other.goto(detailUrl);
    await other.getByRole('dialog').waitFor();
    expect(await seriousAxeViolations(other)).toEqual([]);
    await other.close();
  }, 60000);

  test('when the admin opens the groups tab, then the URL says tab=groups and a reload keeps that tab', async () => {
    await page.goto(`${platform.baseUrl}/app/admin`);
    await page.getByRole('tab', { name: '会员组' }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'groups');
    await page.reload();
    await page.getByRole('tab', { name: '会员组', selected: true }).waitFor();
    expect(await page.getByRole('tab', { name: '用户' }).getAttribute('aria-selected')).toBe('false');
    await page.getByRole('tab', { name: '用户' }).click();
    await page.waitForURL(`${platform.baseUrl}/app/admin`);
    expect(problems).toEqual([]);
  }, 60000);

  test('when a search matches so many images that the service estimates its total, then the count reads as an estimate', async () => {
    // 3,000 image rows (no files: the gallery reads their thumbnails' failures as placeholders) named
    // 'IMG_…' for gina: more than the newest 1,000 the service samples, a word in every one of them.
    const gina = await platform.db('users').where({ name: 'gina' }).first('id');
    const home = await platform.db('categories').where({ user_id: gina.id, is_default: true }).first('id');
    await platform.db.raw(
      `INSERT INTO images (user_id, category_id, storage_key, format, original_name, file_size, width, height, status, created_at)
       SELECT ?, ?, 'estimate/' || g || '.png', 'png', 'IMG_' || lpad(g::text, 5, '0') || '.png', 100, 10, 10, 'stored', now()
       FROM generate_series(1, 3000) AS g`,
      [gina.id, home.id],
    );
    const countReads = (pattern: string) => page.waitForFunction((source) => new RegExp(source).test(document.querySelector('.count-pill')?.textContent ?? ''), pattern);
    await page.goto(`${platform.baseUrl}/app/?q=IMG_`);
    // Every sampled name matches: the estimate is all of gina's images (3,043), 'about' that many.
    await countReads('^约 3043 张$');
    await page.goto(`${platform.baseUrl}/app/?q=plain-0`);
    await countReads('^共 9 张$');
  });
});
