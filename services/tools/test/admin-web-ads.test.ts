import type express from 'express';
import type request from 'supertest';
import { addEditor, signedIn } from './support/editors';
import { openHarness, type Harness } from './support/harness';

// The mini-program ad configuration in the admin: a preview that stores nothing, a save the API serves at
// once, and refusals named at their fields with nothing stored.

jest.setTimeout(60_000);

let harness: Harness;
let app: express.Express;
let agent: ReturnType<typeof request.agent>;
let csrf: string;

const stored = async () => (await harness.db('app_settings').where({ key: 'miniapp_ads' }).first())?.value;
const adsApi = async () => (await agent.get('/api/index.php?action=miniapp&type=ads')).body.data;

const validForm = (fields: Record<string, string> = {}) => ({
  csrf,
  'banner.enabled': 'on',
  'banner.unit_id': 'adunit-banner-1',
  'banner.position': 'top',
  'interstitial.unit_id': '',
  'interstitial.interval': '90',
  'rewarded.enabled': 'on',
  'rewarded.unit_id': 'adunit-reward-1',
  'native.unit_id': '',
  'unlock.enabled': 'on',
  'unlock.features': '高清导出\n批量处理',
  'unlock.duration_minutes': '30',
  ...fields,
});

const expectedConfig = {
  banner: { unit_id: 'adunit-banner-1', enabled: true, position: 'top' },
  interstitial: { unit_id: '', enabled: false, interval: 90 },
  rewarded: { unit_id: 'adunit-reward-1', enabled: true },
  native: { unit_id: '', enabled: false },
  unlock: { enabled: true, features: ['高清导出', '批量处理'], duration_minutes: 30 },
};

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  app = harness.app();
  ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
});

describe('ads config in the admin', () => {
  it('when the ads page is opened on a fresh install, then the form shows everything off and the preview says no ad shows', async () => {
    const res = await agent.get('/admin/ads');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<a href="/admin/ads" aria-current="page">小程序广告</a>');
    expect(res.text).toContain('<li data-ad="none">所有广告均未启用：小程序不显示广告。</li>');
    expect(res.text).not.toMatch(/id="field-banner\.enabled" name="banner\.enabled" checked/);
  });

  it('when an editor previews a config, then the page shows where each ad goes and the JSON, and nothing is stored', async () => {
    const res = await agent.post('/admin/ads').type('form').send({ ...validForm(), intent: 'preview' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('这是未保存的预览');
    // The banner on top: before the page's content.
    expect(res.text).toMatch(/<div class="phone"[^>]*>\s*<div class="ad-preview__banner" data-ad="banner">横幅广告<small>广告位 adunit-banner-1<\/small><\/div>\s*<div class="phone__page">/);
    expect(res.text).toContain('<li data-ad="unlock">看完激励视频解锁 30 分钟：高清导出、批量处理</li>');
    expect(res.text).not.toContain('data-ad="interstitial"');
    expect(res.text).toContain('&quot;duration_minutes&quot;: 30');
    expect(res.text).toContain('value="adunit-banner-1"'); // the form keeps what was typed
    expect(await stored()).toBeUndefined();
    expect((await adsApi()).banner.enabled).toBe(false);
  });

  it('when an editor saves a config, then the API serves it at once and the page shows it again', async () => {
    const res = await agent.post('/admin/ads').type('form').send({ ...validForm(), intent: 'save' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/admin/ads?done=saved');
    expect(await stored()).toEqual(expectedConfig);
    expect(await adsApi()).toEqual(expectedConfig);
    const page = await agent.get('/admin/ads?done=saved');
    expect(page.text).toContain('广告配置已保存');
    expect(page.text).toMatch(/id="field-banner\.enabled" name="banner\.enabled" checked/);
    expect(page.text).toContain('<option value="top" selected>页面顶部</option>');
    expect(page.text).toContain('当前已保存的配置。');
  });

  it('when the form has errors, then each is named at its field, what was typed is kept, and nothing is stored', async () => {
    await agent.post('/admin/ads').type('form').send({ ...validForm(), intent: 'save' });
    const res = await agent.post('/admin/ads').type('form').send({
      ...validForm({ 'native.enabled': 'on', 'interstitial.interval': 'soon', 'unlock.duration_minutes': '0', 'banner.position': 'middle', 'rewarded.enabled': '' }),
      intent: 'save',
    });
    expect(res.status).toBe(422);
    expect(res.text).toContain('表单有 5 处需要修改');
    expect(res.text).toContain('<a href="#field-banner.position">横幅位置</a>: 位置只能是页面顶部或页面底部');
    expect(res.text).toContain('<a href="#field-interstitial.interval">插屏最短间隔（秒）</a>: 间隔必须是 0 到 86400 之间的整数');
    expect(res.text).toContain('<a href="#field-unlock.duration_minutes">解锁时长（分钟）</a>: 时长必须是 1 到 525600 之间的整数');
    expect(res.text).toContain('<a href="#field-native.unit_id">原生广告位 ID</a>: 启用时必须填写广告位 ID');
    expect(res.text).toContain('<a href="#field-unlock.enabled">启用看广告解锁</a>: 看广告解锁需要先启用激励视频广告');
    expect(res.text).toMatch(/id="field-interstitial\.interval" name="interstitial\.interval"[^>]*aria-invalid="true"[^>]*value="soon"/);
    expect(res.text).toContain('<span class="field__error" id="field-native.unit_id-error">启用时必须填写广告位 ID</span>');
    expect(await stored()).toEqual(expectedConfig);
  });

  it('when the form is posted without the session token, then it is refused and nothing is stored', async () => {
    const res = await agent.post('/admin/ads').type('form').send({ ...validForm(), csrf: 'forged', intent: 'save' });
    expect(res.status).toBe(403);
    expect(await stored()).toBeUndefined();
  });
});
