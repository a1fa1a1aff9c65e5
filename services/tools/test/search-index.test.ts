import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { runAdminCommand } from '../src/admin/commands';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';

const slugsFor = async (app: Parameters<typeof request>[0], keyword: string): Promise<string[]> => {
  const res = await request(app).get(`/api/index.php?action=search&q=${encodeURIComponent(keyword)}&limit=50`);
  expect(res.status).toBe(200);
  return res.body.data.data.map((tool: { slug: string }) => tool.slug);
};

describe('search documents of tools written after the sample', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await openHarness();
  });
  afterAll(async () => {
    await harness.close();
  });
  beforeEach(async () => {
    await harness.reset();
    await importJson(harness.db, smallCatalog);
  });

  async function admin(argv: string[]) {
    const out: string[] = [];
    const status = await runAdminCommand(argv, { db: harness.db, defaultRateLimitPerHour: 1000, out: (line) => out.push(line), err: (line) => out.push(line) });
    return { status, out: out.join('\n') };
  }

  it('when a tool is imported later through the admin CLI, then the pinyin of its name, tags, description and category finds it', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tools-search-')), 'later.json');
    const tool = { slug: 'mockplus', name: '摹客 Mockplus', description: '一站式产品协作平台', url: 'https://www.mockplus.cn', category: 'developer', tags: ['原型设计'] };
    fs.writeFileSync(file, JSON.stringify({ tools: [tool] }));
    expect((await admin(['import', file])).status).toBe(0);
    const app = harness.app();
    for (const keyword of ['moke', 'mk', 'yuanxingsheji', 'yxsj', 'xiezuo', 'kaifagongju', 'mockplus', 'mokcplus']) {
      expect({ keyword, found: await slugsFor(app, keyword) }).toEqual({ keyword, found: expect.arrayContaining(['mockplus']) });
    }
  });

  it('when a category is renamed (category:edit or category:set), then its tools are found by the new name and no longer by the old', async () => {
    const { app, services } = harness.appWithServices();
    expect(await slugsFor(app, 'tupianchuli')).toEqual(expect.arrayContaining(['tinypng', 'snipaste']));
    expect(await slugsFor(app, '修图美化')).toEqual([]);

    expect((await admin(['category:edit', 'image', '--name', '修图美化'])).status).toBe(0);
    await services.search.refresh();
    expect(await slugsFor(app, 'xiutumeihua')).toEqual(expect.arrayContaining(['tinypng', 'snipaste']));
    expect(await slugsFor(app, 'tupianchuli')).toEqual([]);

    expect((await admin(['category:set', '--slug', 'image', '--name', '看图'])).status).toBe(0);
    await services.search.refresh();
    expect(await slugsFor(app, 'kantu')).toEqual(expect.arrayContaining(['tinypng', 'snipaste']));
    expect(await slugsFor(app, 'xiutumeihua')).toEqual([]);
  });

  it('when an operator adds an alias through the admin CLI, then a running service finds the tools under it at once, and no longer once it is removed', async () => {
    const { app, services } = harness.appWithServices();
    // smallCatalog has Snipaste, tagged 截图, and no tool mentioning "capture tool".
    expect(await slugsFor(app, 'capture tool')).toEqual([]);
    const added = await admin(['aliases:add', '截图', 'Capture Tool', 'snapshot']);
    expect(added).toEqual({ status: 0, out: '2 aliases added to "截图" (0 already there)' });
    await services.search.refresh();
    expect(await slugsFor(app, 'capture tool')).toContain('snipaste');
    expect(await slugsFor(app, 'SNAPSHOT')).toContain('snipaste');
    expect((await admin(['aliases:list', 'capture tool'])).out).toMatch(/^截图\t.*capture tool/);

    expect(await admin(['aliases:remove', '截图', 'capture tool'])).toEqual({ status: 0, out: '1 alias removed from "截图"' });
    await services.search.refresh();
    expect(await slugsFor(app, 'capture tool')).toEqual([]);
    expect(await slugsFor(app, 'snapshot')).toContain('snipaste');
    expect(await admin(['aliases:remove', '截图', 'capture tool'])).toEqual({ status: 1, out: 'error: no such alias of "截图"' });
    expect((await admin(['aliases:add', '截图'])).status).toBe(2);
    expect((await admin(['aliases:add', '截图', '截圖'])).out).toMatch(/is the term itself/);
  });

  it('when the directory ships, then its default aliases find tools across languages (screen recorder, 谷歌翻译, antivirus)', async () => {
    const app = harness.app();
    expect((await admin(['aliases:list', 'screenshot'])).out).toMatch(/^截图\t/);
    expect(await slugsFor(app, 'screenshot')).toContain('snipaste');
  });
});
