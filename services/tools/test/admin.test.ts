import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { runAdminCommand } from '../src/admin/commands';
import { hashApiKey } from '../src/auth/api-keys';
import { ensureDemoData, sampleDatasetPath } from '../src/demo';
import { createRequestLimiter } from '../src/ratelimit/request-limiter';
import { openRedis } from '../src/ratelimit/redis-connection';
import { openHarness, silentLogger, type Harness } from './support/harness';

const fixture = (name: string) => path.join(__dirname, 'fixtures', name);

let harness: Harness;
beforeAll(async () => {
  harness = await openHarness();
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
});

async function admin(argv: string[], limiter?: ReturnType<typeof createRequestLimiter>) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runAdminCommand(argv, {
    db: harness.db,
    limiter,
    defaultRateLimitPerHour: 1000,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

const keyFrom = (output: string) => /key: (tk_[A-Za-z0-9_-]+)/.exec(output)?.[1] ?? '';

describe('admin: API keys', () => {
  it('when a key is created, then it is printed once, only its digest is stored, and it opens the API', async () => {
    const result = await admin(['key:create', '--name', 'partner', '--limit', '50']);
    expect(result.status).toBe(0);
    const apiKey = keyFrom(result.out);
    expect(apiKey).toMatch(/^tk_[A-Za-z0-9_-]{43}$/);
    const rows = await harness.db('api_keys').select('*');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: 'partner', key_hash: hashApiKey(apiKey), enabled: true, rate_limit_per_hour: 50 });
    expect(JSON.stringify(rows[0])).not.toContain(apiKey);
    const res = await request(harness.app()).get('/api/index.php?action=categories').set('X-API-Key', apiKey);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('50');
  });

  it('when a key name is taken or missing, or the limit is bad, then the command fails and nothing is created', async () => {
    await admin(['key:create', '--name', 'partner']);
    expect(await admin(['key:create', '--name', 'partner'])).toMatchObject({ status: 1, err: 'error: an API key named "partner" already exists' });
    expect((await admin(['key:create'])).status).toBe(2);
    const badLimit = await admin(['key:create', '--name', 'other', '--limit', '0']);
    expect(badLimit.status).toBe(2);
    expect(badLimit.err).toContain('limit must be a positive integer, got "0"');
    expect(Number((await harness.db('api_keys').count({ n: '*' }).first())?.n)).toBe(1);
  });

  it('when a key is disabled and enabled again, then the API answers 403 and then 200', async () => {
    const apiKey = keyFrom((await admin(['key:create', '--name', 'partner'])).out);
    const app = harness.app();
    expect((await admin(['key:disable', 'partner'])).status).toBe(0);
    const denied = await request(app).get('/api/index.php?action=stats').set('X-API-Key', apiKey);
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ success: false, error: { code: 403, message: 'API密钥已禁用' } });
    expect((await admin(['key:enable', '1'])).status).toBe(0);
    expect((await request(app).get('/api/index.php?action=stats').set('X-API-Key', apiKey)).status).toBe(200);
    expect(await admin(['key:disable', 'nobody'])).toMatchObject({ status: 1, err: 'error: no API key named or numbered "nobody"' });
  });

  it('when a key’s limit is set and reset to default, then the API uses it and key:list shows usage', async () => {
    const apiKey = keyFrom((await admin(['key:create', '--name', 'partner'])).out);
    expect((await admin(['key:limit', 'partner', '2'])).out).toBe('API key #1 "partner" limit: 2/hour');
    const limiter = createRequestLimiter({ keyPrefix: 't', logger: silentLogger });
    const app = harness.app({ limiter });
    await request(app).get('/api/index.php?action=stats').set('X-API-Key', apiKey).expect(200);
    await request(app).get('/api/index.php?action=stats').set('X-API-Key', apiKey).expect(200);
    await request(app).get('/api/index.php?action=stats').set('X-API-Key', apiKey).expect(429);
    const listed = await admin(['key:list'], limiter);
    expect(listed.out.split('\n')[1]).toMatch(/^1\tpartner\ttk_.{5}…\tenabled\t2\t3\t\d+s$/);
    expect((await admin(['key:list'])).out).toContain('n/a (no REDIS_URL)');
    expect((await admin(['key:limit', 'partner', 'default'])).status).toBe(0);
    expect((await harness.db('api_keys').first('rate_limit_per_hour')).rate_limit_per_hour).toBeNull();
    expect((await admin(['key:limit', 'partner', 'lots'])).status).toBe(2);
  });

  it('when Redis is configured but unreachable, then key:list says the usage is unavailable instead of a false 0', async () => {
    await admin(['key:create', '--name', 'partner']);
    const redis = openRedis('redis://127.0.0.1:1', silentLogger); // nothing listens on port 1
    try {
      const listed = await admin(['key:list'], createRequestLimiter({ keyPrefix: 't', redis, logger: silentLogger }));
      expect(listed.status).toBe(0);
      expect(listed.out.split('\n')[1]).toMatch(/^1\tpartner\ttk_.{5}…\tenabled\t1000 \(default\)\tn\/a \(Redis unavailable\)\t-$/);
    } finally {
      redis.disconnect();
    }
  });
});

describe('admin: categories, import, ads', () => {
  it('when categories are set and edited, then the API lists them with the new values', async () => {
    expect((await admin(['category:set', '--slug', 'image', '--name', '图片', '--icon', '🖼️', '--sort-order', '2'])).out).toBe('category "image" created');
    expect((await admin(['category:set', '--slug', 'image', '--name', '图片处理', '--sort-order', '2'])).out).toBe('category "image" updated');
    expect((await admin(['category:set', '--slug', 'image', '--name', '图片处理', '--sort-order', '2'])).out).toBe('category "image" unchanged');
    expect((await admin(['category:edit', 'image', '--description', '压缩、编辑图片'])).status).toBe(0);
    const row = await harness.db('categories').where({ slug: 'image' }).first();
    expect(row).toMatchObject({ name: '图片处理', description: '压缩、编辑图片', sort_order: 2 });
    // The English fields (shown on /en/ pages) are edited the same way; the other fields stay.
    expect((await admin(['category:edit', 'image', '--name-en', 'Images', '--description-en', 'Compress and edit images'])).status).toBe(0);
    expect(await harness.db('categories').where({ slug: 'image' }).first('name', 'name_en', 'description_en')).toEqual({
      name: '图片处理',
      name_en: 'Images',
      description_en: 'Compress and edit images',
    });
    expect(await admin(['category:edit', 'image', '--name-en', 'x'.repeat(101)])).toMatchObject({ status: 2, err: 'error: name_en is longer than 100 characters\nrun with --help for usage' });
    expect(await admin(['category:edit', 'nope', '--name', 'x'])).toMatchObject({ status: 1, err: 'error: no category with slug "nope"' });
    expect((await admin(['category:set', '--slug', 'Bad Slug', '--name', 'x'])).status).toBe(2);
    expect((await admin(['category:list'])).out).toContain('image\t图片处理\t2\t0');
  });

  it('when category:edit gets a value an import would refuse, then it is a usage error and the category is unchanged', async () => {
    await admin(['category:set', '--slug', 'image', '--name', '图片', '--icon', '🖼️', '--description', '图片工具']);
    const before = await harness.db('categories').where({ slug: 'image' }).first('name', 'description', 'icon', 'sort_order');
    expect(await admin(['category:edit', 'image', '--icon', 'i'.repeat(501)])).toMatchObject({ status: 2, err: 'error: icon is longer than 500 characters\nrun with --help for usage' });
    expect(await admin(['category:edit', 'image', '--description', 'd'.repeat(2001)])).toMatchObject({ status: 2, err: 'error: description is longer than 2000 characters\nrun with --help for usage' });
    expect(await admin(['category:edit', 'image', '--name', 'a\u0000b'])).toMatchObject({ status: 2, err: 'error: name contains control characters or invalid Unicode\nrun with --help for usage' });
    expect(await admin(['category:edit', 'image', '--name', '   '])).toMatchObject({ status: 2, err: 'error: name is required\nrun with --help for usage' });
    expect(await harness.db('categories').where({ slug: 'image' }).first('name', 'description', 'icon', 'sort_order')).toEqual(before);
    expect((await admin(['category:edit', 'image', '--name', '  图片处理  ', '--sort-order=-3'])).status).toBe(0);
    expect(await harness.db('categories').where({ slug: 'image' }).first('name', 'description', 'icon', 'sort_order')).toEqual({ ...before, name: '图片处理', sort_order: -3 });
  });

  it('when a JSON file has bad rows, then good rows are imported and each bad row is reported with its reason', async () => {
    const result = await admin(['import', fixture('tools-with-errors.json')]);
    expect(result.status).toBe(1);
    expect(result.out.split('\n')).toEqual([
      'categories: 1 created, 0 updated, 0 unchanged, 1 rejected',
      '  rejected category 2 (Bad Slug): slug must be lowercase letters, digits, ".", "_" or "-"',
      'tools: 2 created, 0 updated, 0 unchanged, 6 rejected',
      '  rejected tool 3 (nowhere): unknown category "no-such-category"',
      '  rejected tool 4 (nameless): name is required',
      '  rejected tool 5 (badurl): url is not a valid http(s) URL',
      '  rejected tool 6 (vscode): duplicate slug "vscode" in this file',
      '  rejected tool 7 (featured-string): is_featured must be true or false',
      '  rejected tool 8: tool must be an object',
    ]);
    const tools = await harness.db('tools').orderBy('id').select('slug', 'name', 'tags', 'is_featured');
    expect(tools).toEqual([
      { slug: 'vscode', name: 'Visual Studio Code', tags: ['编辑器', 'IDE'], is_featured: true },
      { slug: 'github', name: 'GitHub', tags: ['git'], is_featured: false },
    ]);
  });

  it('when the same file is imported again, then rows are matched by slug, not duplicated; changed rows are updated, the rest left alone; visits are kept', async () => {
    await admin(['import', fixture('tools-with-errors.json')]);
    await harness.db('tools').where({ slug: 'github' }).update({ visits: 42, name: 'GitHub (edited by hand)' });
    const untouched = await harness.db('tools').where({ slug: 'vscode' }).first('updated_at');
    const again = await admin(['import', fixture('tools-with-errors.json')]);
    expect(again.out).toContain('categories: 0 created, 0 updated, 1 unchanged, 1 rejected');
    expect(again.out).toContain('tools: 0 created, 1 updated, 1 unchanged, 6 rejected');
    expect(Number((await harness.db('tools').count({ n: '*' }).first())?.n)).toBe(2);
    expect(await harness.db('tools').where({ slug: 'github' }).first('visits', 'name')).toEqual({ visits: expect.anything(), name: 'GitHub' });
    expect(Number((await harness.db('tools').where({ slug: 'github' }).first('visits')).visits)).toBe(42);
    expect(await harness.db('tools').where({ slug: 'vscode' }).first('updated_at')).toEqual(untouched);
  });

  it('when a CSV file is imported, then quoted fields, |-separated tags and 1/0/true/false flags are read and bad lines reported', async () => {
    await admin(['category:set', '--slug', 'image', '--name', '图片处理']);
    const result = await admin(['import', fixture('tools.csv')]);
    expect(result.status).toBe(1);
    expect(result.out.split('\n')).toEqual([
      'categories: 0 created, 0 updated, 0 unchanged, 0 rejected',
      'tools: 3 created, 0 updated, 0 unchanged, 3 rejected',
      '  rejected line 5 (broken): expected 8 columns, found 3',
      '  rejected line 6 (nocat): unknown category "missing"',
      '  rejected line 7 (maybe): is_featured must be true or false',
    ]);
    const tools = await harness.db('tools').orderBy('id').select('slug', 'description', 'icon', 'tags', 'is_featured');
    expect(tools).toEqual([
      { slug: 'tinypng', description: '在线压缩 PNG, JPEG 图片', icon: '', tags: ['压缩', '图片', 'png'], is_featured: true },
      { slug: 'squoosh', description: 'Google 的 "开源" 图片压缩', icon: 'https://squoosh.app/favicon.ico', tags: ['压缩'], is_featured: false },
      { slug: 'photopea', description: '在线 PS', icon: '', tags: [], is_featured: true },
    ]);
  });

  it('when rows carry NUL, other control characters or lone surrogates, then only those rows are rejected with a reason and the rest is imported', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-import-'));
    const tool = (slug: string, extra: Record<string, unknown> = {}) => ({ slug, name: slug.toUpperCase(), url: `https://${slug}.example.com`, category: 'dev', ...extra });
    const document = {
      categories: [
        { slug: 'dev', name: '开发' },
        { slug: 'bad-cat', name: 'Bad\u0000Category' },
      ],
      tools: [
        tool('nul-name', { name: 'A\u0000B' }),
        tool('nul-description', { description: 'x\u0000y' }),
        tool('nul-tag', { tags: ['ok', 't\u0000'] }),
        tool('nul-url', { url: 'https://nul.example.com/\u0000' }),
        tool('surrogate-name', { name: 'bad \ud800 name' }),
        tool('tab-in-name', { name: 'Tab\tName' }),
        tool('good', { description: '第一行\n第二行\t缩进' }),
      ],
    };
    fs.writeFileSync(path.join(dir, 'hostile.json'), JSON.stringify(document));
    const result = await admin(['import', path.join(dir, 'hostile.json')]);
    expect(result.status).toBe(1);
    expect(result.err).toBe('');
    expect(result.out.split('\n')).toEqual([
      'categories: 1 created, 0 updated, 0 unchanged, 1 rejected',
      '  rejected category 2 (bad-cat): name contains control characters or invalid Unicode',
      'tools: 1 created, 0 updated, 0 unchanged, 6 rejected',
      '  rejected tool 1 (nul-name): name contains control characters or invalid Unicode',
      '  rejected tool 2 (nul-description): description contains control characters or invalid Unicode',
      '  rejected tool 3 (nul-tag): a tag contains control characters or invalid Unicode',
      '  rejected tool 4 (nul-url): url contains control characters or invalid Unicode',
      '  rejected tool 5 (surrogate-name): name contains control characters or invalid Unicode',
      '  rejected tool 6 (tab-in-name): name contains control characters or invalid Unicode',
    ]);
    expect(await harness.db('tools').select('slug', 'description')).toEqual([{ slug: 'good', description: '第一行\n第二行\t缩进' }]);
    expect(await harness.db('categories').pluck('slug')).toEqual(['dev']);

    fs.writeFileSync(path.join(dir, 'hostile.csv'), `${['slug,name,description,url,icon,category,tags,is_featured', 'nul,N\u0000,,https://n.example.com,,dev,,0', 'fine,Fine,,https://f.example.com,,dev,,0'].join('\n')}\n`);
    const csv = await admin(['import', path.join(dir, 'hostile.csv')]);
    expect(csv.out.split('\n')).toEqual([
      'categories: 0 created, 0 updated, 0 unchanged, 0 rejected',
      'tools: 1 created, 0 updated, 0 unchanged, 1 rejected',
      '  rejected line 2 (nul): name contains control characters or invalid Unicode',
    ]);
    expect((await harness.db('tools').orderBy('id').pluck('slug'))).toEqual(['good', 'fine']);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('when a %s CSV has blank lines and multi-line quoted fields, then rejected rows are reported by the line they start on', async (_name, eol) => {
    await admin(['category:set', '--slug', 'image', '--name', '图片处理']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-import-'));
    const lines = [
      'slug,name,description,url,icon,category,tags,is_featured', // 1
      '', // 2
      `tinypng,TinyPNG,"第一行${eol}第二行${eol}第三行",https://tinypng.com,,image,,1`, // 3-5
      '', // 6
      'nocat,No Category,,https://example.org,,missing,,0', // 7
      `multi,"Multi${eol}Line Name",,https://example.org,,image,,0`, // 8-9
      'maybe,Maybe,,https://example.org,,image,,maybe', // 10
    ];
    fs.writeFileSync(path.join(dir, 'lines.csv'), `${lines.join(eol)}${eol}`);
    const result = await admin(['import', path.join(dir, 'lines.csv')]);
    expect(result.out.split('\n')).toEqual([
      'categories: 0 created, 0 updated, 0 unchanged, 0 rejected',
      'tools: 1 created, 0 updated, 0 unchanged, 3 rejected',
      '  rejected line 7 (nocat): unknown category "missing"',
      '  rejected line 8 (multi): name contains control characters or invalid Unicode',
      '  rejected line 10 (maybe): is_featured must be true or false',
    ]);
    expect(await harness.db('tools').select('slug', 'description')).toEqual([{ slug: 'tinypng', description: `第一行${eol}第二行${eol}第三行` }]);
  });

  it('when a file is unreadable, malformed or of unknown type, then the import fails with a clear error and writes nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tools-import-'));
    fs.writeFileSync(path.join(dir, 'bad.json'), '{"tools": [');
    fs.writeFileSync(path.join(dir, 'bad.csv'), 'name,slug\nx,y\n');
    fs.writeFileSync(path.join(dir, 'tools.txt'), 'hello');
    expect((await admin(['import', path.join(dir, 'bad.json')])).err).toMatch(/^error: not valid JSON: /);
    expect((await admin(['import', path.join(dir, 'bad.csv')])).err).toBe('error: CSV header must be exactly: slug,name,description,url,icon,category,tags,is_featured (optionally followed by name_en,description_en)');
    expect((await admin(['import', path.join(dir, 'tools.txt')])).status).toBe(2);
    expect(await admin(['import', path.join(dir, 'missing.json')])).toMatchObject({ status: 1, err: `error: cannot read ${path.join(dir, 'missing.json')}: ENOENT` });
    expect(Number((await harness.db('tools').count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('when the sample dataset is imported twice, then it has 0 rejected rows, at least 150 tools in 10 categories, and the second run changes nothing', async () => {
    const first = await admin(['import', sampleDatasetPath()]);
    expect(first.status).toBe(0);
    const created = Number(/tools: (\d+) created, 0 updated, 0 unchanged, 0 rejected/.exec(first.out)?.[1]);
    expect(created).toBeGreaterThanOrEqual(150);
    expect(Number(/categories: (\d+) created/.exec(first.out)?.[1])).toBeGreaterThanOrEqual(10);
    const second = await admin(['import', sampleDatasetPath()]);
    expect(second.out).toContain(`tools: 0 created, 0 updated, ${created} unchanged, 0 rejected`);
    expect(Number((await harness.db('tools').count({ n: '*' }).first())?.n)).toBe(created);
  });

  it('when the ads config is set from a file, then the API serves it; an invalid file is refused and changes nothing', async () => {
    expect((await admin(['ads:set', fixture('ads-config.json')])).status).toBe(0);
    const res = await request(harness.app()).get('/api/index.php?action=miniapp&type=ads');
    expect(res.body.data).toEqual(JSON.parse(fs.readFileSync(fixture('ads-config.json'), 'utf8')));
    const invalid = await admin(['ads:set', fixture('ads-config-invalid.json')]);
    expect(invalid.status).toBe(1);
    expect(invalid.err).toMatch(/^error: invalid ads config at banner\.position: /);
    const still = await request(harness.app()).get('/api/index.php?action=miniapp&type=ads');
    expect(still.body.data.banner.position).toBe('top');
  });
});

describe('demo data', () => {
  it('when the directory is empty, then ensureDemoData imports the sample and returns a working demo key; a second call changes nothing', async () => {
    const first = await ensureDemoData(harness.db);
    expect(first.importedTools).toBeGreaterThanOrEqual(150);
    expect(first.apiKey).toMatch(/^tk_/);
    const res = await request(harness.app()).get('/api/index.php?action=tools').set('X-API-Key', first.apiKey!);
    expect(res.body.data.pagination.total).toBe(first.importedTools);
    expect(await ensureDemoData(harness.db)).toEqual({ apiKey: null, importedTools: 0 });
    expect(Number((await harness.db('api_keys').count({ n: '*' }).first())?.n)).toBe(1);
  });
});
