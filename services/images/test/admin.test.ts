import request from 'supertest';
import { runAdminCommand } from '../src/admin/commands';
import { parseByteSize } from '../src/users/byte-sizes';
import { createTestUser, storedKeys, fixture, imageRows, useTestService, usedBytes, distinctBytes } from './support/harness';

const svc = useTestService({ MAX_UPLOAD_BYTES: String(64 * 1024 * 1024) });

/** Runs a command; `output` is stdout, `errors` stderr (only present when something was written there). */
async function admin(...argv: string[]) {
  return adminWithInput(undefined, ...argv);
}

async function adminWithInput(input: string | undefined, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCommand(argv, { db: svc.db, config: svc.config, out: (line) => out.push(line), err: (line) => err.push(line), input });
  return err.length === 0 ? { code, output: out.join('\n') } : { code, output: out.join('\n'), errors: err.join('\n') };
}

test('when create-user runs, then it prints a token once that works against the API, and the user is in default', async () => {
  const result = await admin('create-user', 'alice');
  expect(result.code).toBe(0);
  const token = /token \(store it now; the user also sees it in the account area\): (\S+)/.exec(result.output)?.[1];
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
  expect(result.output.split('\n')).toContain(`${user.id}\tdave\tdefault\t${used}\t${1024 ** 3}\t${used} B / 1 GiB\tno\tno`);
});

test('when purge-bin runs, then bin items (optionally only older ones) are removed and their bytes freed', async () => {
  const user = await createTestUser(svc.db, 'erin');
  const ids: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    ids.push((await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png')).body.data.id);
  }
  for (const id of ids.slice(0, 2)) await request(svc.app).post('/api/image.php?action=delete').set('X-API-Token', user.token).send({ id });
  await svc.db('images').where({ id: ids[0] }).update({ deleted_at: new Date(Date.now() - 10 * 86400_000) });

  expect((await admin('purge-bin', '--older-than-days', '5')).output).toBe('purged 1 image(s) from the recycle bin');
  expect((await imageRows(svc.db)).map((row) => Number(row.id))).toEqual(ids.slice(1));
  expect((await admin('purge-bin', '--user', 'erin')).output).toBe('purged 1 image(s) from the recycle bin');
  expect((await imageRows(svc.db)).map((row) => Number(row.id))).toEqual([ids[2]]);
  expect(await storedKeys(svc, 'bin')).toEqual([]);
  expect(await storedKeys(svc, 'public')).toHaveLength(1);
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
  [['create-user'], 'error: usage: create-user <name> [--group <group>] [--admin] [--password-stdin]'],
  [['set-admin', 'x', 'maybe'], 'error: usage: set-admin <name> yes|no'],
  [['set-password', 'x', 'y'], 'error: usage: set-password <name>   (the password is the first line of stdin)'],
  [['create-user', 'x', '--color'], expect.stringContaining('error: Unknown option')],
])('when the CLI is used wrongly (%j), then it says how and exits 2', async (argv, firstLine) => {
  const result = await admin(...argv);
  expect(result).toEqual({ code: 2, output: '', errors: expect.any(String) });
  const [line, hint] = result.errors!.split('\n');
  expect(line).toEqual(firstLine);
  expect(hint).toBe('run with --help for usage');
});

async function signIn(username: string, password: string) {
  return request(svc.app).post('/api/image.php?action=login').type('form').send({ username, password });
}

test('when create-user --admin --password-stdin runs, then the admin signs in with that password and reaches the admin API', async () => {
  const result = await adminWithInput('s3cret-pass\nignored second line\n', 'create-user', 'root', '--admin', '--password-stdin');
  expect(result.code).toBe(0);
  expect(result.output).toMatch(/^created user root \(id \d+\) in group default, admin, with a password\n/);
  const session = await signIn('root', 's3cret-pass');
  expect(session.body).toMatchObject({ code: 0, msg: '登录成功', data: { user: { username: 'root', is_admin: true } } });
  const users = await request(svc.app).get('/api/image.php?action=admin_users').set('X-API-Token', session.body.data.token);
  expect(users.body).toMatchObject({ code: 0, data: { total: 1, list: [{ username: 'root', is_admin: true }] } });
  // The password was the first line only.
  expect((await signIn('root', 's3cret-pass\nignored second line')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
});

test('when set-password runs, then the new password signs in and the old one does not; a short one is refused', async () => {
  await createTestUser(svc.db, 'gina', undefined, { password: 'first-password' });
  expect(await adminWithInput('second-password\n', 'set-password', 'gina')).toEqual({ code: 0, output: 'password of gina set' });
  expect((await signIn('gina', 'first-password')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
  expect((await signIn('gina', 'second-password')).body.code).toBe(0);
  expect(await adminWithInput('short\n', 'set-password', 'gina')).toEqual({ code: 1, output: '', errors: 'error: a password must be 8-128 characters' });
  expect(await adminWithInput(undefined, 'set-password', 'gina')).toMatchObject({ code: 2, errors: expect.stringContaining('error: no password on stdin') });
  expect((await signIn('gina', 'second-password')).body.code).toBe(0);
});

test('when disable-user runs, then every credential of the user stops at once, and enable-user brings the tokens back (not the sessions)', async () => {
  const user = await createTestUser(svc.db, 'hank', undefined, { password: 'hank-password' });
  const session = (await signIn('hank', 'hank-password')).body.data.token;
  const list = (token: string) => request(svc.app).get('/api/image.php?action=list').set('X-API-Token', token);
  expect((await list(session)).body.code).toBe(0);
  expect(await admin('disable-user', 'hank')).toEqual({ code: 0, output: 'user hank disabled: every credential stops at once' });
  expect((await list(user.token)).body).toEqual({ code: 1, msg: '请先登录' });
  expect((await list(session)).body).toEqual({ code: 1, msg: '请先登录' });
  expect((await signIn('hank', 'hank-password')).body).toEqual({ code: 1, msg: '账号已停用' });
  expect(await admin('enable-user', 'hank')).toEqual({ code: 0, output: 'user hank enabled' });
  expect((await list(user.token)).body.code).toBe(0);
  expect((await list(session)).body).toEqual({ code: 1, msg: '请先登录' });
});

test('when set-admin would leave no active admin, then it is refused; with another admin it applies', async () => {
  await createTestUser(svc.db, 'ivy', undefined, { isAdmin: true });
  expect(await admin('set-admin', 'ivy', 'no')).toEqual({ code: 1, output: '', errors: 'error: user ivy is the last active admin: make another admin first' });
  expect(await admin('disable-user', 'ivy')).toEqual({ code: 1, output: '', errors: 'error: user ivy is the last active admin: make another admin first' });
  await createTestUser(svc.db, 'jack');
  expect(await admin('set-admin', 'jack', 'yes')).toEqual({ code: 0, output: 'user jack is now an admin' });
  expect(await admin('set-admin', 'ivy', 'no')).toEqual({ code: 0, output: 'user ivy is no longer an admin' });
  expect((await admin('list-users')).output.split('\n').slice(1).map((line) => line.split('\t').slice(1, 2).concat(line.split('\t').slice(6)))).toEqual([
    ['ivy', 'no', 'no'],
    ['jack', 'yes', 'no'],
  ]);
});

test('when sizes use units, then they are parsed to bytes', () => {
  expect(parseByteSize('10MiB')).toBe(10 * 1024 * 1024);
  expect(parseByteSize('1.5GiB')).toBe(1.5 * 1024 ** 3);
  expect(parseByteSize('500KB')).toBe(500_000);
  expect(parseByteSize('123')).toBe(123);
  expect(() => parseByteSize('-1')).toThrow('invalid size');
});
