import type express from 'express';
import type request from 'supertest';
import type { Services } from '../src/app';
import { formatExport } from '../src/catalog/catalog-export';
import { createExportRepository } from '../src/catalog/export-repository';
import { addEditor, signedIn } from './support/editors';
import { importJson, openHarness, smallCatalog, type Harness } from './support/harness';

// Imports and exports in the web admin: a dry run with its per-row report, then applying it, with progress.

jest.setTimeout(120_000);

let harness: Harness;
let app: express.Express;
let services: Services;
let agent: ReturnType<typeof request.agent>;
let csrf: string;
const count = async (table: string) => Number((await harness.db(table).count({ n: '*' }))[0]!.n);
const runIdOf = (location: string) => Number(/^\/admin\/imports\/(\d+)$/.exec(location)?.[1]);

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
  ({ app, services } = harness.appWithServices({ config: { SITE_CACHE_TTL_MS: '60000', LOG_LEVEL: 'error' } }));
  ({ agent, csrf } = await signedIn(app, 'alice', 'correct horse'));
});
afterAll(async () => {
  await services.editors.imports.settled();
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  await harness.db.raw('TRUNCATE import_runs');
  await importJson(harness.db, smallCatalog);
});

const upload = (name: string, content: string | Buffer, fields: Record<string, string> = {}) => {
  let req = agent.post('/admin/import').field('csrf', fields.csrf ?? csrf);
  for (const [key, value] of Object.entries(fields)) if (key !== 'csrf') req = req.field(key, value);
  return req.attach('import_file', Buffer.isBuffer(content) ? content : Buffer.from(content), name);
};

const changes = {
  categories: [{ slug: 'writing', name: '写作', sort_order: 4 }],
  tools: [
    { slug: 'typora', name: 'Typora', url: 'https://typora.io', category: 'writing' },
    { ...smallCatalog.tools[1], name: 'GitHub（代码托管）' },
    smallCatalog.tools[2],
    { slug: 'Bad Slug', name: 'x', url: 'https://x.example', category: 'writing' },
    { slug: 'nowhere', name: 'Nowhere', url: 'https://nowhere.example', category: 'missing' },
  ],
};

describe('imports in the admin', () => {
  it('when an editor uploads a file, then a dry run reports every row and writes nothing; applying it writes them, reports the same, and the site shows the change', async () => {
    expect((await agent.get('/category/developer')).text).not.toContain('GitHub（代码托管）'); // warm the site cache

    const uploaded = await upload('changes.json', JSON.stringify(changes));
    expect(uploaded.status).toBe(303);
    const dryRunId = runIdOf(uploaded.headers.location!);
    await services.editors.imports.settled();
    const dryRun = await agent.get(`/admin/imports/${dryRunId}`);
    expect(dryRun.status).toBe(200);
    expect(dryRun.text).toContain('试运行完成，尚未写入任何内容。');
    expect(dryRun.text).not.toContain('http-equiv="refresh"');
    const reportRows = (page: string) =>
      [...page.matchAll(/<tr class="import-row--(\w+)"><td>(.+?)<\/td><td>(\d+)<\/td><td class="slug">(.*?)<\/td><td>(.+?)<\/td><td>(.*?)<\/td><\/tr>/g)].map((match) => match.slice(2).join(' | '));
    const expectedRows = [
      '分类 | 1 | writing | 新建 | ',
      '工具 | 1 | typora | 新建 | ',
      '工具 | 2 | github | 更新 | ',
      '工具 | 4 | Bad Slug | 拒绝 | slug 只能由小写字母、数字、“.”、“_”和“-”组成',
      '工具 | 5 | nowhere | 拒绝 | 没有 slug 为“missing”的分类',
    ];
    expect(reportRows(dryRun.text)).toEqual(expectedRows);
    expect(await count('categories')).toBe(3);
    expect(await harness.db('tools').where({ slug: 'github' }).first('name')).toEqual({ name: 'GitHub' });

    const applied = await agent.post(`/admin/imports/${dryRunId}/apply`).type('form').send({ csrf });
    expect(applied.status).toBe(303);
    const applyId = runIdOf(applied.headers.location!);
    expect(applyId).not.toBe(dryRunId);
    // A second click (or a second tab) gets the same run: the file is applied once.
    expect((await agent.post(`/admin/imports/${dryRunId}/apply`).type('form').send({ csrf })).headers.location).toBe(`/admin/imports/${applyId}`);
    await services.editors.imports.settled();
    const result = await agent.get(`/admin/imports/${applyId}`);
    expect(result.text).toContain('导入完成。');
    expect(reportRows(result.text)).toEqual(expectedRows);
    expect(await harness.db('tools').where({ slug: 'github' }).first('name')).toEqual({ name: 'GitHub（代码托管）' });
    expect(await count('tools')).toBe(5);
    expect((await agent.get('/category/developer')).text).toContain('GitHub（代码托管）');
    expect((await agent.get(`/admin/imports/${dryRunId}`)).text).toContain(`href="/admin/imports/${applyId}"`);
    expect((await agent.get('/admin/import')).text).toContain('changes.json');
  });

  it('when a run is still going, then its page shows a progress bar fed by the run and refreshes itself', async () => {
    const [row] = await harness.db('import_runs')
      .insert({ file_name: 'big.csv', format: 'csv', dry_run: false, state: 'running', done_rows: 1500, total_rows: 10000 })
      .returning('id');
    const page = await agent.get(`/admin/imports/${(row as { id: string }).id}`);
    expect(page.text).toContain('<meta http-equiv="refresh" content="1">');
    expect(page.text).toContain('<progress id="import-progress" max="10000" value="1500">1500 / 10000 行</progress>');
  });

  it('when the file cannot be read, then the page names why (422), and nothing is stored, not even the run', async () => {
    const bad = await upload('broken.json', '{"tools": [');
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('文件无法按 JSON 读取：不是有效的 JSON');
    expect(bad.text).toContain('aria-invalid="true"');
    const unknown = await upload('notes.txt', 'hello');
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('认不出文件格式');
    const csvHeader = await upload('tools.csv', 'name,url\nx,https://x.example\n');
    expect(csvHeader.status).toBe(422);
    expect(csvHeader.text).toContain('CSV 表头必须正好是');
    const none = await agent.post('/admin/import').field('csrf', csrf);
    expect(none.status).toBe(422);
    expect(none.text).toContain('请选择要导入的文件。');
    expect(await count('import_runs')).toBe(0);
    expect(await count('tools')).toBe(smallCatalog.tools.length);
  });

  it('when the form token is wrong or no editor is signed in, then nothing is read or stored', async () => {
    expect((await upload('changes.json', JSON.stringify(changes), { csrf: 'forged' })).status).toBe(403);
    const anonymous = await (await import('supertest')).default(app).post('/admin/import').attach('import_file', Buffer.from(JSON.stringify(changes)), 'changes.json');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe('/admin/');
    expect(await count('import_runs')).toBe(0);
  });

  it('when an editor exports, then the file is the directory in the chosen format, as a download', async () => {
    for (const format of ['json', 'csv', 'html'] as const) {
      const res = await agent.get(`/admin/export?format=${format}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="directory-\\d{4}-\\d{2}-\\d{2}\\.${format}"$`));
      expect(res.text).toBe(formatExport(await createExportRepository(harness.db).readCatalog(), format));
    }
    expect((await agent.get('/admin/export?format=xml')).status).toBe(404);
  });
});
