import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import initSqlJs from 'sql.js';
import { runAdminCommand } from '../src/admin/commands';
import { createCatalogRepository } from '../src/catalog/catalog-repository';
import { formatExport, type ExportFormat } from '../src/catalog/catalog-export';
import { createExportRepository } from '../src/catalog/export-repository';
import { detectFormat, ImportFormatError, readImportSource, runImport, type ImportFormat } from '../src/catalog/importer';
import { openHarness, smallCatalog, type Harness } from './support/harness';

jest.setTimeout(60_000);

let harness: Harness;
const count = async (table: string) => Number((await harness.db(table).count({ n: '*' }))[0]!.n);
beforeAll(async () => {
  harness = await openHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
});

/**
 * Every field with something awkward in it: quotes, commas, pipes in text, line breaks, markup, English fields,
 * orders, and tags holding the CSV's tag separator `|` and its escape `\`.
 */
const awkwardCatalog = {
  categories: [
    ...smallCatalog.categories,
    { slug: 'writing', name: '写作 & "排版"', description: '第一行\n第二行, <b>不是标签</b>', icon: '✍️', sort_order: -4, name_en: 'Writing', description_en: 'Line one\nline two' },
  ],
  tools: [
    ...smallCatalog.tools,
    {
      slug: 'typora',
      name: 'Typora <Markdown>',
      description: '所见即所得,"双引号"\n第二段 & 更多',
      url: 'https://typora.io/?a=1&b=2',
      icon: 'https://typora.io/favicon.ico',
      category: 'writing',
      tags: ['markdown', '写作, 排版', 'A|B', 'C:\\dir\\', 'x\\|y', '|'],
      is_featured: true,
      sort_order: 7,
      name_en: 'Typora',
      description_en: 'What you see, "quoted"',
    },
  ],
};

async function exportAs(format: ExportFormat): Promise<string> {
  return formatExport(await createExportRepository(harness.db).readCatalog(), format);
}

async function importText(text: string | Buffer, format: ImportFormat, dryRun = false) {
  return runImport(createCatalogRepository(harness.db), await readImportSource(text, format), { dryRun });
}

describe('exports import back to the same directory', () => {
  it.each(['json', 'csv', 'html'] as const)('when the directory is exported as %s, imported into an empty database and exported again, then both files are identical', async (format) => {
    const first = await importText(JSON.stringify(awkwardCatalog), 'json');
    expect(first.tools.rejected).toEqual([]);
    const directoryBefore = await exportAs('json');
    const exported = await exportAs(format);

    await harness.reset();
    const report = await importText(exported, format);
    expect(report.categories.rejected).toEqual([]);
    expect(report.tools.rejected).toEqual([]);
    expect(report.tools.created).toBe(awkwardCatalog.tools.length);

    expect(await exportAs(format)).toBe(exported);
    expect(await exportAs('json')).toBe(directoryBefore);
  });

  it('when an export is imported over the directory it came from, then every row is unchanged', async () => {
    await importText(JSON.stringify(awkwardCatalog), 'json');
    for (const format of ['json', 'csv', 'html'] as const) {
      const report = await importText(await exportAs(format), format);
      expect(report.rows.every((row) => row.outcome === 'unchanged')).toBe(true);
    }
  });
});

describe('tags holding the CSV tag separator', () => {
  it('when tags hold "|" or "\\", then the CSV writes them escaped (\\| and \\\\) and reads them back; an older file\'s other backslashes stay as written', async () => {
    await importText(JSON.stringify(awkwardCatalog), 'json');
    const csv = await exportAs('csv');
    expect(csv).toContain('"markdown|写作, 排版|A\\|B|C:\\\\dir\\\\|x\\\\\\|y|\\|"');

    await harness.reset();
    await importText(csv, 'csv');
    expect((await harness.db('tools').where({ slug: 'typora' }).first('tags')).tags).toEqual(['markdown', '写作, 排版', 'A|B', 'C:\\dir\\', 'x\\|y', '|']);

    await harness.reset();
    await importText(JSON.stringify({ categories: smallCatalog.categories, tools: [] }), 'json');
    const handWritten = ['slug,name,description,url,icon,category,tags,is_featured', String.raw`cpp,C++,,https://isocpp.org,,developer,C\C++|a\|b| c |,false`].join('\n');
    const report = await importText(handWritten, 'csv');
    expect(report.tools.rejected).toEqual([]);
    expect((await harness.db('tools').where({ slug: 'cpp' }).first('tags')).tags).toEqual(['C\\C++', 'a|b', 'c']);
  });
});

/**
 * Two levels: subcategories listed before their parents, orders that tie across parents, an empty
 * subcategory and a parent whose tools are all in its subcategories.
 */
const treeCatalog = {
  categories: [
    { slug: 'frontend', name: '前端', description: '浏览器里的事', icon: '🌐', sort_order: 1, parent: 'developer', name_en: 'Frontend' },
    { slug: 'compress', name: '压缩', sort_order: 1, parent: 'image' },
    { slug: 'empty-sub', name: '空的子分类', sort_order: 0, parent: 'developer' },
    ...awkwardCatalog.categories,
    { slug: 'media', name: '媒体', sort_order: 1 },
    { slug: 'video', name: '视频', description: '剪辑', sort_order: 0, parent: 'media' },
  ],
  tools: [
    ...awkwardCatalog.tools,
    { slug: 'vite', name: 'Vite', description: '构建工具', url: 'https://vitejs.dev/', category: 'frontend', tags: ['build'], sort_order: 2 },
    { slug: 'react', name: 'React', url: 'https://react.dev/', category: 'frontend', sort_order: 1 },
    { slug: 'squoosh', name: 'Squoosh', url: 'https://squoosh.app/', category: 'compress', is_featured: true },
    { slug: 'kdenlive', name: 'Kdenlive', url: 'https://kdenlive.org/', category: 'video' },
  ],
};

const categoryTree = async () =>
  harness.db('categories as c').leftJoin('categories as p', 'p.id', 'c.parent_id').select('c.slug', 'p.slug as parent').orderBy('c.slug');

describe('exports keep the category tree', () => {
  it.each(['json', 'csv', 'html'] as const)('when a directory with subcategories is exported as %s, imported into an empty database and exported again, then both files are identical and the tree is the same', async (format) => {
    const first = await importText(JSON.stringify(treeCatalog), 'json');
    expect(first.categories.rejected).toEqual([]);
    expect(first.tools.rejected).toEqual([]);
    const treeBefore = await categoryTree();
    expect(treeBefore.filter((row) => row.parent !== null)).toEqual([
      { slug: 'compress', parent: 'image' },
      { slug: 'empty-sub', parent: 'developer' },
      { slug: 'frontend', parent: 'developer' },
      { slug: 'video', parent: 'media' },
    ]);
    const directoryBefore = await exportAs('json');
    const exported = await exportAs(format);

    await harness.reset();
    const report = await importText(exported, format);
    expect(report.categories).toEqual({ created: treeCatalog.categories.length, updated: 0, unchanged: 0, rejected: [] });
    expect(report.tools).toEqual({ created: treeCatalog.tools.length, updated: 0, unchanged: 0, rejected: [] });

    expect(await categoryTree()).toEqual(treeBefore);
    expect(await exportAs(format)).toBe(exported);
    expect(await exportAs('json')).toBe(directoryBefore);
    // Imported over the directory it came from, nothing changes.
    const again = await importText(exported, format);
    expect(again.rows.every((row) => row.outcome === 'unchanged')).toBe(true);
  });

  it('when exported, then JSON and CSV carry each category\'s parent slug and the bookmark file nests subcategory folders in their parent\'s', async () => {
    await importText(JSON.stringify(treeCatalog), 'json');
    const json = JSON.parse(await exportAs('json')) as { categories: { slug: string; parent: string }[] };
    expect(json.categories.map(({ slug, parent }) => [slug, parent])).toEqual([
      ['writing', ''],
      ['image', ''],
      ['compress', 'image'],
      ['media', ''],
      ['video', 'media'],
      ['developer', ''],
      ['empty-sub', 'developer'],
      ['frontend', 'developer'],
      ['empty', ''],
    ]);
    const csv = (await exportAs('csv')).split('\n');
    expect(csv[0]).toBe('record,slug,name,description,url,icon,category,tags,is_featured,sort_order,name_en,description_en,parent');
    expect(csv).toContain('category,video,视频,剪辑,,,,,,0,,,media');
    const html = (await exportAs('html')).split('\n').filter((line) => /<H3|<A /.test(line)).map((line) => line.replace(/ [A-Z_-]+="[^"]*"/g, ''));
    expect(html.slice(7, 14)).toEqual([
      '    <DT><H3>媒体</H3>',
      '        <DT><H3>视频</H3>',
      '            <DT><A>Kdenlive</A>',
      '    <DT><H3>开发工具</H3>',
      '        <DT><A>Visual Studio Code</A>',
      '        <DT><A>GitHub</A>',
      '        <DT><H3>空的子分类</H3>',
    ]);
  });

  it('when a whole-directory CSV written before categories had parents (no parent column) is imported, then its categories are top-level', async () => {
    const old = [
      'record,slug,name,description,url,icon,category,tags,is_featured,sort_order,name_en,description_en',
      'category,media,媒体,,,,,,,1,,',
      'tool,kdenlive,Kdenlive,,https://kdenlive.org/,,media,,false,0,,',
      '',
    ].join('\n');
    const report = await importText(old, 'csv');
    expect(report.categories).toEqual({ created: 1, updated: 0, unchanged: 0, rejected: [] });
    expect(report.tools).toMatchObject({ created: 1, rejected: [] });
    expect(await categoryTree()).toEqual([{ slug: 'media', parent: null }]);
  });
});

const chromeBookmarks = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<!-- This is an automatically generated file. -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1700000000" PERSONAL_TOOLBAR_FOLDER="true">书签栏</H3>
    <DL><p>
        <DT><A HREF="https://example.org/loose" ADD_DATE="1700000000">Loose link</A>
        <DT><H3 ADD_DATE="1700000000">开发工具</H3>
        <DL><p>
            <DT><A HREF="https://github.com/" ICON="data:image/png;base64,AAAA">GitHub</A>
            <DT><H3>前端</H3>
            <DL><p>
                <DT><A HREF="https://vitejs.dev/" TAGS="build,js">Vite</A>
                <DD>Next generation tooling
                <DT><H3>框架</H3>
                <DL><p>
                    <DT><A HREF="https://react.dev/">React</A>
                </DL><p>
            </DL><p>
            <DT><A HREF="javascript:alert(1)">A bookmarklet</A>
            <DT><A HREF="https://github.com/">GitHub again</A>
        </DL><p>
    </DL><p>
</DL><p>
`;

describe('browser bookmark files', () => {
  it('when a Chrome export is imported, then two folder levels become categories, deeper ones a path tag, and what cannot be a tool is refused per line', async () => {
    expect(detectFormat('bookmarks_27_11_2026.html')).toBe('html');
    const source = await readImportSource(chromeBookmarks, 'html');
    expect(source.categories.map((row) => row.fields)).toEqual([
      { slug: 'kai-fa-gong-ju', name: '开发工具', description: '', icon: '', sort_order: 0, name_en: '', description_en: '' },
      { slug: 'qian-duan', name: '前端', description: '', icon: '', sort_order: 1, name_en: '', description_en: '', parent: 'kai-fa-gong-ju' },
      { slug: 'uncategorized', name: '未分类', sort_order: 2 },
    ]);
    const report = await importText(chromeBookmarks, 'html');
    expect(report.categories).toEqual({ created: 3, updated: 0, unchanged: 0, rejected: [] });
    expect(report.tools.created).toBe(4);
    expect(report.tools.rejected).toEqual([
      { row: 22, slug: 'alert-1', reason: { key: 'notHttpUrl', params: { field: 'url' } } },
      { row: 23, slug: 'github.com', reason: { key: 'duplicateToolSlug', params: { slug: 'github.com' } } },
    ]);
    const tools = await harness.db('tools as t').join('categories as c', 'c.id', 't.category_id').select('t.slug', 't.name', 't.icon', 't.tags', 't.description', 'c.slug as category').orderBy('t.id');
    expect(tools).toEqual([
      { slug: 'example.org-loose', name: 'Loose link', icon: '', tags: [], description: '', category: 'uncategorized' },
      { slug: 'github.com', name: 'GitHub', icon: '', tags: [], description: '', category: 'kai-fa-gong-ju' },
      { slug: 'vitejs.dev', name: 'Vite', icon: '', tags: ['build', 'js'], description: 'Next generation tooling', category: 'qian-duan' },
      { slug: 'react.dev', name: 'React', icon: '', tags: ['框架'], description: '', category: 'qian-duan' },
    ]);
    const again = await importText(chromeBookmarks, 'html');
    expect(again.tools).toMatchObject({ created: 0, updated: 0, unchanged: 4 });
  });

  it('when the file is not a bookmark file, then it is refused as a whole and nothing is written', async () => {
    const refusal = importText('just some text', 'html');
    await expect(refusal).rejects.toThrow(ImportFormatError);
    await expect(refusal).rejects.toMatchObject({ reason: { key: 'notBookmarkFile', params: {} }, message: 'not a bookmark file: expected <!DOCTYPE NETSCAPE-Bookmark-file-1> and <DL> lists' });
    expect(await count('categories')).toBe(0);
  });
});

async function oneNavDatabase(): Promise<Buffer> {
  const SQL = await initSqlJs();
  const database = new SQL.Database();
  // The tables as OneNav's db/main.sql creates them, with the columns later versions added (fid, font_icon).
  database.run(`CREATE TABLE on_categorys (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, add_time TEXT NOT NULL, up_time TEXT DEFAULT '',
    weight integer NOT NULL DEFAULT 0, property integer NOT NULL DEFAULT 0, description TEXT DEFAULT '', font_icon TEXT, fid INTEGER DEFAULT 0)`);
  database.run(`CREATE TABLE on_links (id INTEGER NOT NULL PRIMARY KEY, fid INTEGER NOT NULL, title TEXT NOT NULL, url TEXT NOT NULL, description TEXT,
    add_time TEXT NOT NULL, up_time TEXT, weight integer NOT NULL DEFAULT 0, property integer NOT NULL DEFAULT 0, click integer NOT NULL DEFAULT 0)`);
  database.run(`INSERT INTO on_categorys (id, name, add_time, weight, property, description, fid) VALUES
    (1, '常用网址', '1700000000', 10, 0, '每天都用', 0), (2, '私人', '1700000000', 0, 1, '', 0), (3, '前端', '1700000000', 5, 0, '', 1)`);
  database.run(`INSERT INTO on_links (id, fid, title, url, description, add_time, weight, property) VALUES
    (1, 1, 'V2EX', 'https://www.v2ex.com/', 'V2EX 社区', '1700000000', 3, 0),
    (2, 2, '我的 NAS', 'http://192.168.1.2:5000/', '', '1700000000', 0, 1),
    (3, 3, 'Vite', 'https://vitejs.dev/', NULL, '1700000000', 0, 0)`);
  const bytes = Buffer.from(database.export());
  database.close();
  return bytes;
}

describe('OneNav databases', () => {
  it('when onenav.db3 is imported, then its public categories and links become categories and tools in OneNav\'s order, and private rows are skipped with the reason', async () => {
    const data = await oneNavDatabase();
    expect(detectFormat('upload.bin', data)).toBe('onenav');
    const report = await importText(data, 'onenav');
    expect(report.categories).toEqual({ created: 2, updated: 0, unchanged: 0, rejected: [] });
    expect(report.tools).toEqual({ created: 2, updated: 0, unchanged: 0, rejected: [] });
    expect(report.rows.filter((row) => row.outcome === 'skipped')).toEqual([
      { kind: 'category', row: 2, slug: 'si-ren', outcome: 'skipped', reason: { key: 'privateInOneNav', params: {} } },
      { kind: 'tool', row: 2, slug: '192.168.1.2-5000', outcome: 'skipped', reason: { key: 'privateInOneNav', params: {} } },
    ]);
    expect(await harness.db('categories').select('slug', 'name', 'description', 'sort_order').orderBy('id')).toEqual([
      { slug: 'chang-yong-wang-zhi', name: '常用网址', description: '每天都用', sort_order: -10 },
      { slug: 'qian-duan', name: '前端', description: '', sort_order: -5 },
    ]);
    expect(await harness.db('tools').select('slug', 'name', 'url', 'sort_order').orderBy('id')).toEqual([
      { slug: 'v2ex.com', name: 'V2EX', url: 'https://www.v2ex.com/', sort_order: -3 },
      { slug: 'vitejs.dev', name: 'Vite', url: 'https://vitejs.dev/', sort_order: 0 },
    ]);
  });

  it('when the file is not a SQLite database, then it is refused as a whole', async () => {
    await expect(importText(Buffer.from('{"tools": []}'), 'onenav')).rejects.toThrow('not a OneNav database: expected a SQLite file (onenav.db3)');
  });
});

describe('admin CLI: import and export', () => {
  async function admin(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const status = await runAdminCommand(argv, { db: harness.db, defaultRateLimitPerHour: 1000, out: (line) => out.push(line), err: (line) => err.push(line) });
    return { status, out: out.join('\n'), err: err.join('\n') };
  }

  it('when a bookmark file is imported with --dry-run, then the report is printed and nothing is written; without it, the rows are stored; export writes the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-export-'));
    try {
      const file = path.join(dir, 'bookmarks.html');
      fs.writeFileSync(file, chromeBookmarks);
      const dry = await admin(['import', file, '--dry-run']);
      expect(dry.out.split('\n').slice(0, 3)).toEqual(['dry run: nothing was written', 'categories: 3 created, 0 updated, 0 unchanged, 0 rejected', 'tools: 4 created, 0 updated, 0 unchanged, 2 rejected']);
      expect(dry.status).toBe(1);
      expect(await count('tools')).toBe(0);

      expect((await admin(['import', file])).status).toBe(1);
      expect(await count('tools')).toBe(4);
      const out = path.join(dir, 'directory.csv');
      expect(await admin(['export', '--format', 'csv', '--out', out])).toEqual({ status: 0, out: `exported to ${out}`, err: '' });
      expect(fs.readFileSync(out, 'utf8')).toBe(await exportAs('csv'));
      expect((await admin(['export', '--format', 'xml'])).status).toBe(2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
