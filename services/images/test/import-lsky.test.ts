import fs from 'node:fs';
import path from 'node:path';
import { fixtureBytes, filesIn, imageRows, publicBytes, storedKeys, usedBytes, MIB } from './support/harness';
import { reportRows, useImportRun } from './support/import-run';
import { writeLskyInstall, writeLskyMysqlDump, type LskyFixture } from './support/lsky-database';

const run = useImportRun('lsky-');
const { admin } = run;

const LSKY: LskyFixture = {
  groups: [
    { id: 1, name: '默认组', is_default: 1, configs: { maximum_file_size: 5120, limit_per_minute: 20 } },
    { id: 2, name: 'VIP', configs: { maximum_file_size: 20480 } },
    { id: 3, name: '游客组', is_guest: 1, configs: { maximum_file_size: 1024 } },
  ],
  users: [
    { id: 1, group_id: 1, name: 'Alice', email: 'alice@example.com', is_adminer: 1, capacity: 1048576 },
    { id: 2, group_id: 2, name: 'Bob', email: 'bob@example.com', capacity: 2097152, status: 0 },
  ],
  albums: [{ id: 1, user_id: 1, name: '旅行' }],
  images: [
    { id: 1, user_id: 1, album_id: 1, path: '2024/01/02', name: 'a1b2c3.png', origin_name: '海边.png', permission: 1, created_at: '2024-01-02 08:30:00', bytes: fixtureBytes('alpha.png') },
    { id: 2, user_id: 1, album_id: null, path: '2024/01/05', name: 'd4e5f6.gif', origin_name: 'cat.gif', permission: 0, created_at: '2024-01-05 12:00:00', bytes: fixtureBytes('animated.gif') },
    { id: 3, user_id: 2, album_id: null, path: '2024/02/01', name: 'g7h8i9.webp', origin_name: 'bob.webp', permission: 1, created_at: '2024-02-01 00:00:01', bytes: fixtureBytes('photo.webp') },
    { id: 4, user_id: null, album_id: null, path: '2024/02/02', name: 'guest.png', origin_name: 'guest.png', permission: 1, created_at: '2024-02-02 09:00:00', bytes: fixtureBytes('tiny.png') },
    { id: 5, user_id: 1, album_id: null, path: '2024/02/03', name: 'gone.png', origin_name: 'gone.png', permission: 1, created_at: '2024-02-03 09:00:00' },
  ],
};

const databaseFile = () => path.join(run.dir, 'database.sqlite');
const storageDir = () => path.join(run.dir, 'storage', 'app', 'uploads');
const importArgs = () => ['import-from', 'lsky', databaseFile(), storageDir(), '--redirect-map', path.join(run.dir, 'lsky.map')];

describe('import-from lsky', () => {
  test('when a Lsky database is imported, then groups, users (named by email), albums as categories and images with names and dates arrive; a guest upload is skipped and a missing file reported', async () => {
    await writeLskyInstall(databaseFile(), storageDir(), LSKY);

    const result = await admin(importArgs());

    expect(result.code).toBe(1);
    expect(reportRows(result.out)).toEqual([
      'imported group 1',
      'imported group 2',
      'imported user 1',
      'imported user 2',
      'imported album 1',
      'imported image /i/2024/01/02/a1b2c3.png',
      'imported image /i/2024/01/05/d4e5f6.gif',
      'imported image /i/2024/02/01/g7h8i9.webp',
      'skipped image /i/2024/02/02/guest.png',
      'failed image /i/2024/02/03/gone.png',
    ]);
    expect(result.out).toContain('skipped\timage\t/i/2024/02/02/guest.png\ta guest upload: it has no owner');
    expect(result.out).toContain(`failed\timage\t/i/2024/02/03/gone.png\tno file at ${path.join(storageDir(), '2024/02/03/gone.png')}`);
    expect(result.out).toContain('imported 8, skipped 1, failed 1');

    expect(result.out).toContain('imported\tgroup\t1\tlsky-1');
    const groups = await run.svc.db('groups').whereIn('name', ['lsky-1', 'VIP']).orderBy('name').select('name', 'max_file_size', 'quota_bytes');
    expect(groups.map((group) => [group.name, Number(group.max_file_size), Number(group.quota_bytes)])).toEqual([
      ['VIP', 20 * MIB, 2048 * MIB],
      ['lsky-1', 5 * MIB, 1024 * MIB],
    ]);
    const users = await run.svc.db('users as u').join('groups as g', 'g.id', 'u.group_id').orderBy('u.id').select('u.id', 'u.name', 'g.name as group', 'u.is_admin', 'u.disabled_at', 'u.password_hash');
    expect(users.map((user) => [user.name, user.group, user.is_admin, user.disabled_at !== null, user.password_hash])).toEqual([
      ['alice@example.com', 'lsky-1', true, false, null],
      ['bob@example.com', 'VIP', false, true, null],
    ]);
    const [alice, bob] = users as Array<{ id: number }>;
    const travel = await run.svc.db('categories').where({ user_id: alice!.id, name: '旅行' }).first();
    const rows = await imageRows(run.svc.db);
    expect(rows.map((row) => [row.user_id, row.original_name, (row.created_at as Date).toISOString(), row.category_id === travel.id])).toEqual([
      [alice!.id, '海边.png', '2024-01-02T00:30:00.000Z', true],
      [alice!.id, 'cat.gif', '2024-01-05T04:00:00.000Z', false],
      [bob!.id, 'bob.webp', '2024-01-31T16:00:01.000Z', false],
    ]);
    for (const [user, name] of [[alice!, 'alice@example.com'], [bob!, 'bob@example.com']] as const) {
      const used = rows.filter((row) => row.user_id === user.id).reduce((sum, row) => sum + Number(row.file_size), 0);
      expect(await usedBytes(run.svc.db, user.id)).toBe(used);
      expect(result.out).toContain(`used bytes of ${name}: ${used}`);
    }
    const url = result.out.find((line) => line.startsWith('imported\timage\t/i/2024/01/02/'))!.split('\t')[3]!;
    expect(await publicBytes(run.svc, url)).toEqual(fixtureBytes('alpha.png'));
    expect(filesIn(run.svc.storageDir, 'tmp')).toEqual([]);

    const map = fs.readFileSync(path.join(run.dir, 'lsky.map'), 'utf8').split('\n');
    expect(map.slice(1)).toEqual([
      `"/i/2024/01/02/a1b2c3.png" "${run.svc.config.publicBaseUrl}/i/${rows[0]!.storage_key}";`,
      `"/i/2024/01/05/d4e5f6.gif" "${run.svc.config.publicBaseUrl}/i/${rows[1]!.storage_key}";`,
      `"/i/2024/02/01/g7h8i9.webp" "${run.svc.config.publicBaseUrl}/i/${rows[2]!.storage_key}";`,
      '',
    ]);
  });

  test('when it runs twice, then the second run imports nothing again; once the missing file is back, only it is imported', async () => {
    await writeLskyInstall(databaseFile(), storageDir(), LSKY);
    expect((await admin(importArgs())).code).toBe(1);
    const stored = await storedKeys(run.svc, 'public');

    const second = await admin(importArgs());
    expect(second.out).toContain('imported 0, skipped 9, failed 1');
    expect(await storedKeys(run.svc, 'public')).toEqual(stored);
    expect(Number((await run.svc.db('users').count({ n: '*' }).first())?.n)).toBe(2); // a count is a string on Postgres, a number on PGlite
    expect(Number((await run.svc.db('categories').where({ name: '旅行' }).count({ n: '*' }).first())?.n)).toBe(1); // a count is a string on Postgres, a number on PGlite

    fs.mkdirSync(path.join(storageDir(), '2024/02/03'), { recursive: true });
    fs.copyFileSync(path.join(__dirname, 'fixtures', 'tiny.png'), path.join(storageDir(), '2024/02/03/gone.png'));
    const third = await admin(importArgs());
    expect(third.code).toBe(0);
    expect(reportRows(third.out).filter((row) => row.startsWith('imported'))).toEqual(['imported image /i/2024/02/03/gone.png']);
    expect(await imageRows(run.svc.db)).toHaveLength(4);
  });

  test('when the file is not a Lsky database, then it says so and imports nothing', async () => {
    fs.writeFileSync(databaseFile(), 'not sqlite');
    expect(await admin(importArgs())).toMatchObject({ code: 1, err: [`error: ${databaseFile()} is neither a SQLite database nor a MySQL dump (no CREATE TABLE in it)`] });
    expect(await admin(['import-from', 'lsky', path.join(run.dir, 'nothing.sqlite'), storageDir()])).toMatchObject({ code: 1, err: [`error: no Lsky Pro database at ${path.join(run.dir, 'nothing.sqlite')}`] });
    expect(Number((await run.svc.db('import_records').count({ n: '*' }).first())?.n)).toBe(0); // a count is a string on Postgres, a number on PGlite
  });

  test('when the database is a MySQL dump as mysqldump writes it, then the same rows arrive, strings unescaped', async () => {
    const tricky: LskyFixture = {
      ...LSKY,
      albums: [{ id: 1, user_id: 1, name: '旅行 \\ "2024"' }],
      images: LSKY.images.map((image) => (image.id === 2 ? { ...image, origin_name: 'it\'s "cat".gif' } : image)),
    };
    const dumpFile = path.join(run.dir, 'lsky.sql');
    writeLskyMysqlDump(dumpFile, storageDir(), tricky);

    const result = await admin(['import-from', 'lsky', dumpFile, storageDir(), '--redirect-map', path.join(run.dir, 'lsky.map')]);

    expect(result.out).toContain('imported 8, skipped 1, failed 1');
    const rows = await imageRows(run.svc.db);
    expect(rows.map((row) => [row.original_name, (row.created_at as Date).toISOString()])).toEqual([
      ['海边.png', '2024-01-02T00:30:00.000Z'],
      ['it\'s "cat".gif', '2024-01-05T04:00:00.000Z'],
      ['bob.webp', '2024-01-31T16:00:01.000Z'],
    ]);
    expect((await run.svc.db('users').orderBy('id').select('name')).map((user) => user.name)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(Number((await run.svc.db('groups').where({ name: 'VIP' }).first()).max_file_size)).toBe(20 * MIB);
    expect(Number((await run.svc.db('categories').where({ name: '旅行 \\ "2024"' }).count({ n: '*' }).first())?.n)).toBe(1); // a count is a string on Postgres, a number on PGlite
  });
});
