import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { migrateToLatest, openDb } from '@platform/kit';
import { describeWithRealServer } from '@platform/kit/testing';
import { runAdminCommand } from '../src/admin/commands';
import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { importCatalog } from '../src/catalog/importer';
import { SEARCH_DOCUMENT_VERSION } from '../src/catalog/search-document';
import { reindexStaleSearchDocuments } from '../src/catalog/search-index';
import { planSearch } from '../src/catalog/search-query';
import { searchStatement } from '../src/catalog/search-repository';
import { loadConfig } from '../src/config';
import { sampleDatasetPath } from '../src/demo';
import { openToolsService } from '../src/open-service';
import { importJson, openHarness, silentLogger, smallCatalog, type Harness } from './support/harness';
import { migrationSource } from '../src/db/migration-source';

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
    const app = harness.app();
    expect(await slugsFor(app, 'tupianchuli')).toEqual(expect.arrayContaining(['tinypng', 'snipaste']));
    expect(await slugsFor(app, '修图美化')).toEqual([]);

    expect((await admin(['category:edit', 'image', '--name', '修图美化'])).status).toBe(0);
    expect(await slugsFor(app, 'xiutumeihua')).toEqual(expect.arrayContaining(['tinypng', 'snipaste']));
    expect(await slugsFor(app, 'tupianchuli')).toEqual([]);

    expect((await admin(['category:set', '--slug', 'image', '--name', '看图'])).status).toBe(0);
    expect(await slugsFor(app, 'kantu')).toEqual(expect.arrayContaining(['tinypng', 'snipaste']));
    expect(await slugsFor(app, 'xiutumeihua')).toEqual([]);
  });

  it('when documents are missing or from an older version, then reindexing computes exactly those, batch by batch', async () => {
    const catalog = createCatalogRepository(harness.db);
    await harness.db('tool_search').del();
    expect(await slugsFor(harness.app(), 'GitHub')).toEqual([]);
    expect(await reindexStaleSearchDocuments(catalog, 3)).toBe(smallCatalog.tools.length);
    expect(await slugsFor(harness.app(), 'GitHub')).toEqual(['github']);

    await harness.db('tool_search').where('tool_id', '=', harness.db('tools').select('id').where({ slug: 'vscode' })).update({ version: SEARCH_DOCUMENT_VERSION - 1 });
    expect(await reindexStaleSearchDocuments(catalog, 3)).toBe(1);
    expect(await reindexStaleSearchDocuments(catalog, 3)).toBe(0);
  });
});

describe('search documents at service start', () => {
  it('when the service starts on a database whose tools have no search documents (as after the migration), then it computes them before serving', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-search-start-'));
    const databaseUrl = `pglite:${dataDir}`;
    const db = await openDb({ kind: 'pglite-dir', dir: dataDir }, { migrationSource });
    await migrateToLatest(db);
    await importJson(db, smallCatalog);
    await db('tool_search').del();
    await db.destroy();

    const service = await openToolsService(loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl }), { logger: silentLogger });
    try {
      expect(await slugsFor(service.app, 'jietu')).toEqual(['snipaste']);
    } finally {
      await service.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

describeWithRealServer('TEST_DATABASE_URL', 'search plans at 10,000 tools', () => {
  let harness: Harness;
  const TOOLS = 10_000;

  beforeAll(async () => {
    harness = await openHarness();
    const sample = JSON.parse(fs.readFileSync(sampleDatasetPath(), 'utf8')) as { categories: unknown[]; tools: { slug: string; name: string; category: string }[] };
    await importCatalog(createCatalogRepository(harness.db), JSON.stringify({ categories: sample.categories, tools: [] }), 'json');
    const categoryIds = new Map((await harness.db('categories').select('id', 'slug')).map((row: { id: number; slug: string }) => [row.slug, row.id]));
    // The sample over and over, with numbered slugs and names: inserted in bulk, documents computed by the start-time reindex.
    const rows = Array.from({ length: TOOLS }, (_, index) => {
      const tool = sample.tools[index % sample.tools.length] as unknown as Record<string, unknown> & { slug: string; name: string; category: string };
      const round = Math.floor(index / sample.tools.length);
      return {
        slug: `${tool.slug}-${round}`,
        name: `${tool.name} ${round}`,
        description: tool.description,
        url: tool.url,
        icon: tool.icon ?? '',
        category_id: categoryIds.get(tool.category),
        tags: tool.tags,
        is_featured: tool.is_featured ?? false,
      };
    });
    for (let start = 0; start < rows.length; start += 1000) await harness.db('tools').insert(rows.slice(start, start + 1000));
    expect(await reindexStaleSearchDocuments(createCatalogRepository(harness.db))).toBe(TOOLS);
    await harness.db.raw('ANALYZE');
  }, 300_000);
  afterAll(async () => {
    await harness?.close();
  });

  it.each(['抠', 'jt', 'ps', '截图', 'json', 'jietu', 'jie tu', 'tpys', 'tupianyasuo', 'tupian压缩', '图片在线压缩工具', 'photshop', 'pdf 转换', 'github', 'tool'])(
    'when searching %s, then tool_search is read through its GIN index, and neither it nor tools is scanned whole',
    async (keyword) => {
      const statement = searchStatement(planSearch(keyword), 0, 20);
      const result = await harness.db.raw<{ rows: { 'QUERY PLAN': { Plan: PlanNode }[] }[] }>(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.bindings as never);
      const nodes = planNodes(result.rows[0]!['QUERY PLAN'][0]!.Plan);
      expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan' && (node['Relation Name'] === 'tool_search' || node['Relation Name'] === 'tools'))).toEqual([]);
      expect(nodes.some((node) => node['Index Name'] === 'tool_search_keys_idx')).toBe(true);
    },
  );
});
