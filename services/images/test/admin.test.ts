import request from 'supertest';
import { runAdminCommand } from '../src/admin/commands';
import { parseByteSize } from '../src/admin/byte-sizes';
import { createTestUser, filesIn, fixture, imageRows, openTestService, usedBytes, type TestService } from './support/harness';

let svc: TestService;
beforeAll(async () => {
  svc = await openTestService({ MAX_UPLOAD_BYTES: String(64 * 1024 * 1024) });
});
afterAll(async () => svc?.close());
beforeEach(async () => svc.reset());

/** Runs a command; `output` is stdout, `errors` stderr (only present when something was written there). */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCommand(argv, { db: svc.db, config: svc.config, out: (line) => out.push(line), err: (line) => err.push(line) });
  return err.length === 0 ? { code, output: out.join('\n') } : { code, output: out.join('\n'), errors: err.join('\n') };
}

test('when create-user runs, then it prints a token once that works against the API, and the user is in default', async () => {
  const result = await admin('create-user', 'alice');
  expect(result.code).toBe(0);
  const token = /token \(shown once, store it now\): (\S+)/.exec(result.output)?.[1];
  expect(token).toMatch(/^[\w-]{43}$/);
  const profile = await request(svc.app).get('/api/image.php?action=profile').set('X-API-Token', token!);
  expect(profile.body.data).toMatchObject({ username: 'alice', group: 'default' });
  const again = await admin('create-user', 'alice');
  expect(again).toEqual({ code: 1, output: '', errors: 'error: user alice already exists' });
});

test('when reset-token runs, then the old token stops working and the new one works', async () => {
  const user = await createTestUser(svc.db, 'bob');
  const result = await admin('reset-token', 'bob');
  expect(result.code).toBe(0);
  const token = /: (\S+)$/.exec(result.output)?.[1];
  expect((await request(svc.app).get('/api/image.php?action=list').set('X-API-Token', user.token)).body).toEqual({ code: 1, msg: '请先登录' });
  expect((await request(svc.app).get('/api/image.php?action=list').set('X-API-Token', token!)).body.code).toBe(0);
  expect(await admin('reset-token', 'nobody')).toEqual({ code: 1, output: '', errors: 'error: user nobody does not exist' });
});

test('when groups are created, edited and assigned, then the limits apply to uploads', async () => {
  const user = await createTestUser(svc.db, 'carol');
  expect((await admin('create-group', 'tiny', '--max-file-size', '50B', '--quota', '1KiB')).code).toBe(0);
  expect((await admin('set-group', 'carol', 'tiny')).code).toBe(0);
  const refused = await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
  expect(refused.body).toEqual({ code: 1, msg: '文件大小超出限制' });
  expect((await admin('edit-group', 'tiny', '--max-file-size', '1KiB', '--rename', 'small')).code).toBe(0);
  const accepted = await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
  expect(accepted.body.code).toBe(0);
  const groups = await admin('list-groups');
  expect(groups.output).toContain('small\t1024\t1024');
});

test('when a group limit is above MAX_UPLOAD_BYTES, then the CLI refuses it with a clear message and changes nothing', async () => {
  const created = await admin('create-group', 'huge', '--max-file-size', '100MiB', '--quota', '1TiB');
  expect(created).toEqual({
    code: 1,
    output: '',
    errors: 'error: max-file-size 100 MiB is above MAX_UPLOAD_BYTES (64 MiB): raise MAX_UPLOAD_BYTES and nginx client_max_body_size first',
  });
  expect(await svc.db('groups').where({ name: 'huge' }).first()).toBeUndefined();
  const edited = await admin('edit-group', 'vip', '--max-file-size', '65MiB');
  expect(edited.code).toBe(1);
  expect(Number((await svc.db('groups').where({ name: 'vip' }).first()).max_file_size)).toBe(50 * 1024 * 1024);
});

test('when list-users runs, then each user shows group, used and quota bytes', async () => {
  const user = await createTestUser(svc.db, 'dave');
  await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
  const used = await usedBytes(svc.db, user.id);
  const result = await admin('list-users');
  expect(result.code).toBe(0);
  expect(result.output.split('\n')).toContain(`${user.id}\tdave\tdefault\t${used}\t${1024 ** 3}\t${used} B / 1 GiB`);
});

test('when purge-bin runs, then bin items (optionally only older ones) are removed and their bytes freed', async () => {
  const user = await createTestUser(svc.db, 'erin');
  const ids: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    ids.push((await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('tiny.png'))).body.data.id);
  }
  for (const id of ids.slice(0, 2)) await request(svc.app).post('/api/image.php?action=delete').set('X-API-Token', user.token).send({ id });
  await svc.db('images').where({ id: ids[0] }).update({ deleted_at: new Date(Date.now() - 10 * 86400_000) });

  expect((await admin('purge-bin', '--older-than-days', '5')).output).toBe('purged 1 image(s) from the recycle bin');
  expect((await imageRows(svc.db)).map((row) => Number(row.id))).toEqual(ids.slice(1));
  expect((await admin('purge-bin', '--user', 'erin')).output).toBe('purged 1 image(s) from the recycle bin');
  expect((await imageRows(svc.db)).map((row) => Number(row.id))).toEqual([ids[2]]);
  expect(filesIn(svc.storageDir, 'bin')).toEqual([]);
  expect(filesIn(svc.storageDir, 'public')).toHaveLength(1);
  const remaining = Number((await imageRows(svc.db))[0]!.file_size);
  expect(await usedBytes(svc.db, user.id)).toBe(remaining);
});

test('when categories are managed from the CLI, then they belong to that user', async () => {
  await createTestUser(svc.db, 'fay');
  expect((await admin('create-category', 'fay', '风景')).code).toBe(0);
  expect((await admin('create-category', 'fay', '风景')).code).toBe(1);
  expect((await admin('list-categories', 'fay')).output).toMatch(/风景\tno\t0/);
  // The same names the API refuses: control characters, over 64 characters, blank.
  for (const name of ['a\tb\u0001', 'x'.repeat(65), '   ']) {
    const refused = await admin('create-category', 'fay', name);
    expect(refused).toEqual({ code: 1, output: '', errors: 'error: category name must be 1-64 characters, without control characters' });
  }
  expect(Number((await svc.db('categories').count({ n: '*' }).first())!.n)).toBe(2);
});

test.each([
  [['create-user', 'x', '--group', 'nope'], 'error: group nope does not exist'],
  [['create-group', 'g', '--max-file-size', 'ten', '--quota', '1GiB'], expect.stringContaining('error: invalid size "ten"')],
  [['set-group', 'nobody', 'vip'], 'error: user nobody does not exist'],
])('when the CLI gets %j, then it prints one error line on stderr and exits 1', async (argv, errors) => {
  expect(await admin(...argv)).toEqual({ code: 1, output: '', errors });
});

test.each([
  [[], 'error: missing command'],
  [['bogus'], 'error: unknown command "bogus" (see --help)'],
  [['create-user'], 'error: usage: create-user <name> [--group <group>]'],
  [['create-user', 'x', '--color'], expect.stringContaining('error: Unknown option')],
])('when the CLI is used wrongly (%j), then it says how and exits 2', async (argv, firstLine) => {
  const result = await admin(...argv);
  expect(result).toEqual({ code: 2, output: '', errors: expect.any(String) });
  const [line, hint] = result.errors!.split('\n');
  expect(line).toEqual(firstLine);
  expect(hint).toBe('run with --help for usage');
});

test('when sizes use units, then they are parsed to bytes', () => {
  expect(parseByteSize('10MiB')).toBe(10 * 1024 * 1024);
  expect(parseByteSize('1.5GiB')).toBe(1.5 * 1024 ** 3);
  expect(parseByteSize('500KB')).toBe(500_000);
  expect(parseByteSize('123')).toBe(123);
  expect(() => parseByteSize('-1')).toThrow('invalid size');
});
