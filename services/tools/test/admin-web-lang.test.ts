/**
 * The admin's language through the app: Accept-Language decides until the editor picks one with the
 * header's switch (a cookie); the switch goes back only into the admin; messages after a POST, a refused
 * form and a redirect's notice come in the request's language; the pages allow the theme's boot script
 * by its hash and nothing else inline.
 */
import request from 'supertest';
import { preferredByHeader } from '../src/admin-web/admin-lang';
import { THEME_BOOT_HASH } from '../src/site/theme';
import { addEditor, signedIn } from './support/editors';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';

let harness: Harness;

beforeAll(async () => {
  harness = await openHarness();
  await importJson(harness.db, smallCatalog);
  await addEditor(harness.db, 'alice', 'correct horse');
});

afterAll(async () => {
  await harness.close();
});

describe('Accept-Language', () => {
  it.each([
    [undefined, 'zh'],
    ['', 'zh'],
    ['en-US,en;q=0.9', 'en'],
    ['zh-CN,zh;q=0.9,en;q=0.8', 'zh'],
    ['en;q=0.5,zh-TW;q=0.8', 'zh'],
    ['fr-FR,en-GB;q=0.7', 'en'],
    ['de,fr', 'zh'],
    ['en;q=0,zh;q=0.1', 'zh'],
    ['EN', 'en'],
  ])('when the header is %p, then the admin is %p', (header, lang) => {
    expect(preferredByHeader(header)).toBe(lang);
  });
});

describe('the admin in English', () => {
  it('when the browser prefers English, then the sign-in page is English, its CSP allows the theme script by hash', async () => {
    const res = await request(harness.app()).get('/admin/').set('Accept-Language', 'en-US,en;q=0.9');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain('Editor sign-in');
    expect(res.text).toContain('切换到中文');
    expect(res.headers.vary).toMatch(/Accept-Language/);
    expect(res.headers['content-security-policy']).toContain(`script-src 'self' ${THEME_BOOT_HASH};`);
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
  });

  it('when an editor switches to English, then the next pages, a refused form and a notice are English, until they switch back', async () => {
    const { agent, csrf } = await signedIn(harness.app(), 'alice', 'correct horse');
    const switched = await agent.get('/admin/lang?to=en&next=%2Fadmin%2Fcategories');
    expect(switched.status).toBe(303);
    expect(switched.headers.location).toBe('/admin/categories');
    expect(String(switched.headers['set-cookie'])).toMatch(/tools_admin_lang=en; Max-Age=31536000; Path=\/admin; HttpOnly; SameSite=Lax/);

    const list = await agent.get('/admin/categories');
    expect(list.text).toContain('<html lang="en">');
    expect(list.text).toContain('Add a category');

    const refused = await agent.post('/admin/tools').type('form').send({ csrf, name: 'Vite' });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(/The form has \d+ problems to fix:/);

    const id = (await harness.db('tools').where({ slug: 'github' }).first()).id as number;
    const featured = await agent.post(`/admin/tools/${id}/feature`).type('form').send({ csrf, featured: '1' });
    expect(featured.headers.location).toBe('/admin/tools?done=featured');
    expect((await agent.get('/admin/tools?done=featured')).text).toContain('role="status">Featured.<');
    // A notice key that is no table entry (or an Object property) shows nothing.
    expect((await agent.get('/admin/tools?done=constructor')).text).not.toContain('role="status"');

    await agent.get('/admin/lang?to=zh&next=%2Fadmin%2Ftools');
    const back = await agent.get('/admin/tools?done=featured').set('Accept-Language', 'en');
    expect(back.text).toContain('<html lang="zh-CN">');
    expect(back.text).toContain('已设为推荐。');
  });

  it('when the switch is given somewhere outside the admin to go back to, then it goes to the tool list', async () => {
    for (const next of ['https://evil.example/', '//evil.example/admin/', '/admin/../x\\y', '']) {
      const res = await request(harness.app()).get(`/admin/lang?to=en&next=${encodeURIComponent(next)}`);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/admin/tools');
    }
  });
});
