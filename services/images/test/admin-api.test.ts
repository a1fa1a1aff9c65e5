import request from 'supertest';
import { createTestUser, fixture, useTestService, usedBytes } from './support/harness';
import { tokenCalls } from './support/api-calls';

// What an admin user manages through the API: users and membership groups.

const API = '/api/image.php';
const svc = useTestService();

const { read, write, sessionOf } = tokenCalls(() => svc);

test('when a non-admin or an admin token (not a session) calls an admin action, then it is refused and nothing changes', async () => {
  const plain = await sessionOf('plain');
  const admin = await sessionOf('root', { isAdmin: true });
  for (const [action, send] of [
    ['admin_users', () => read('admin_users', plain.session)],
    ['admin_create_user', () => write('admin_create_user', plain.session).send({ username: 'x', password: 'password-123' })],
    ['admin_create_group', () => write('admin_create_group', plain.session).send({ name: 'g', max_file_size: 1, quota_bytes: 1 })],
  ] as const) {
    expect([action, (await send()).body]).toEqual([action, { code: 1, msg: '没有权限' }]);
  }
  expect((await read('admin_users', admin.token)).body).toEqual({ code: 1, msg: '请使用账号密码登录后再操作' });
  expect((await svc.db('users').select('name')).map((row) => row.name).sort()).toEqual(['plain', 'root']);
  expect(await svc.db('groups').where({ name: 'g' })).toEqual([]);
});

test('when an admin lists users, then each shows group, admin and disabled flags, used and quota bytes, paged and searchable', async () => {
  const admin = await sessionOf('root', { isAdmin: true });
  const bob = await createTestUser(svc.db, 'bob', 'vip');
  await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', bob.token).attach('file', fixture('tiny.png'));
  const res = await read('admin_users', admin.session, '&limit=1&page=2');
  expect(res.body).toEqual({
    code: 0,
    msg: '成功',
    data: {
      list: [
        {
          id: bob.id,
          username: 'bob',
          group: 'vip',
          is_admin: false,
          disabled: false,
          uploads_banned: false,
          used_bytes: await usedBytes(svc.db, bob.id),
          quota_bytes: 20 * 1024 ** 3,
          max_file_size: 50 * 1024 * 1024,
          create_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      ],
      total: 2,
      page: 2,
      limit: 1,
    },
  });
  expect((await read('admin_users', admin.session, '&keyword=BO')).body.data).toMatchObject({ total: 1, list: [{ username: 'bob' }] });
  expect((await read('admin_users', admin.session, '&keyword=%25')).body.data).toMatchObject({ total: 0 });
});

test('when an admin creates a user, moves them to a group, disables and re-enables them, then each change applies at once', async () => {
  const admin = await sessionOf('root', { isAdmin: true });
  const vip = (await read('admin_groups', admin.session)).body.data.list.find((group: { name: string }) => group.name === 'vip');
  const created = await write('admin_create_user', admin.session).send({ username: 'carol', password: 'carol-password' });
  expect(created.body).toMatchObject({ code: 0, msg: '用户已创建', data: { username: 'carol', group: 'default', is_admin: false, disabled: false, used_bytes: 0 } });
  const carol = await request(svc.app).post(`${API}?action=login`).send({ username: 'carol', password: 'carol-password' });
  expect(carol.body.code).toBe(0);
  const id = created.body.data.id;

  const moved = await write('admin_update_user', admin.session).send({ id, group_id: vip.id });
  expect(moved.body).toMatchObject({ code: 0, msg: '用户已更新', data: { group: 'vip', quota_bytes: 20 * 1024 ** 3 } });
  expect((await read('profile', carol.body.data.token)).body.data.group).toBe('vip');

  expect((await write('admin_update_user', admin.session).send({ id, disabled: 'true' })).body.data.disabled).toBe(true);
  expect((await read('profile', carol.body.data.token)).body).toEqual({ code: 1, msg: '请先登录' });
  expect((await write('admin_update_user', admin.session).send({ id, disabled: false, password: 'another-password' })).body.data.disabled).toBe(false);
  expect((await request(svc.app).post(`${API}?action=login`).send({ username: 'carol', password: 'another-password' })).body.code).toBe(0);
});

test('when an admin would disable or demote themselves, or the input is bad, then it is refused with its message', async () => {
  const admin = await sessionOf('root', { isAdmin: true });
  expect((await write('admin_update_user', admin.session).send({ id: admin.id, disabled: true })).body).toEqual({ code: 1, msg: '至少要保留一名可用的管理员' });
  expect((await write('admin_update_user', admin.session).send({ id: admin.id, is_admin: false })).body).toEqual({ code: 1, msg: '至少要保留一名可用的管理员' });
  expect((await write('admin_update_user', admin.session).send({ id: 999, disabled: true })).body).toEqual({ code: 1, msg: '用户不存在' });
  expect((await write('admin_update_user', admin.session).send({ id: admin.id, group_id: 999 })).body).toEqual({ code: 1, msg: '会员组不存在' });
  expect((await write('admin_update_user', admin.session).send({ id: admin.id, disabled: 'maybe' })).body).toEqual({ code: 1, msg: '参数错误' });
  expect((await write('admin_create_user', admin.session).send({ username: 'root', password: 'password-123' })).body).toEqual({ code: 1, msg: '用户名已被使用' });
  expect((await write('admin_create_user', admin.session).send({ username: 'x'.repeat(1000), password: 'password-123' })).body).toEqual({ code: 1, msg: '用户名须为 1 到 64 个字母、数字或 _.@-' });
  expect((await write('admin_create_user', admin.session).send({ username: 'dave', password: 'short' })).body).toEqual({ code: 1, msg: '密码长度须为 8 到 128 个字符' });
  expect((await svc.db('users').select('name')).map((row) => row.name)).toEqual(['root']);
  expect((await svc.db('users').where({ id: admin.id }).first()).is_admin).toBe(true);
});

test('when an admin creates and edits groups, then the limits apply to uploads; bad limits and names are refused', async () => {
  const admin = await sessionOf('root', { isAdmin: true });
  const created = await write('admin_create_group', admin.session).send({ name: 'tiny', max_file_size: 50, quota_bytes: 1024 });
  expect(created.body).toEqual({ code: 0, msg: '会员组已创建', data: { id: expect.any(Number), name: 'tiny', max_file_size: 50, quota_bytes: 1024, keep_metadata: false, user_count: 0 } });
  const groupId = created.body.data.id;
  const user = await createTestUser(svc.db, 'erin', 'tiny');
  const upload = () => request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
  expect((await upload()).body).toEqual({ code: 1, msg: '文件大小超出限制' });

  const edited = await write('admin_update_group', admin.session).send({ id: groupId, name: 'small', max_file_size: '1024', keep_metadata: true });
  expect(edited.body).toEqual({ code: 0, msg: '会员组已更新', data: { id: groupId, name: 'small', max_file_size: 1024, quota_bytes: 1024, keep_metadata: true, user_count: 1 } });
  expect((await upload()).body.code).toBe(0);

  for (const [body, msg] of [
    [{ name: 'tiny!', max_file_size: 1, quota_bytes: 1 }, '会员组名称须为 1 到 64 个字母、数字或 _.-'],
    [{ name: 'small', max_file_size: 1, quota_bytes: 1 }, '会员组已存在'],
    [{ name: 'zero', max_file_size: 0, quota_bytes: 1 }, '会员组限制无效：单个文件上限须在 1 字节到服务器上限之间，容量不能为负'],
    [{ name: 'huge', max_file_size: 100 * 1024 * 1024, quota_bytes: 1 }, '会员组限制无效：单个文件上限须在 1 字节到服务器上限之间，容量不能为负'],
    [{ name: 'neg', max_file_size: 1, quota_bytes: -1 }, '参数错误'],
    [{ name: 'nolimits' }, '参数错误'],
  ] as const) {
    expect((await write('admin_create_group', admin.session).send(body)).body).toEqual({ code: 1, msg });
  }
  const defaultGroup = (await read('admin_groups', admin.session)).body.data.list.find((group: { name: string }) => group.name === 'default');
  expect((await write('admin_update_group', admin.session).send({ id: defaultGroup.id, name: 'renamed' })).body).toEqual({ code: 1, msg: '默认会员组不能改名' });
  expect((await write('admin_update_group', admin.session).send({ id: 999, quota_bytes: 1 })).body).toEqual({ code: 1, msg: '会员组不存在' });
  expect((await svc.db('groups').orderBy('id').select('name')).map((row) => row.name)).toEqual(['default', 'vip', 'small']);
});
