import request from 'supertest';
import { createTestUser, useTestService, type TestService } from './support/harness';

// The site settings admins edit (site name, registration, the group of new users): stored in the
// database, unless an environment variable fixes one, which then wins and refuses edits.

const API = '/api/image.php';

async function adminSession(svc: TestService) {
  await createTestUser(svc.db, 'root', undefined, { password: 'password-123', isAdmin: true });
  const res = await request(svc.app).post(`${API}?action=login`).send({ username: 'root', password: 'password-123' });
  return res.body.data.token as string;
}

const register = (svc: TestService, username: string) => request(svc.app).post(`${API}?action=register`).send({ username, password: 'password-123' });

describe('without environment settings', () => {
  const svc = useTestService();

  test('when an admin saves the settings, then registration opens into the chosen group and features show the site name, at once', async () => {
    const session = await adminSession(svc);
    const settings = () => request(svc.app).get(`${API}?action=admin_settings`).set('X-API-Token', session);
    expect((await settings()).body).toEqual({
      code: 0,
      msg: '成功',
      data: { site_name: null, registration_enabled: false, default_group: 'default', fixed_by_env: { site_name: null, registration_enabled: null, default_group: null } },
    });
    expect((await register(svc, 'early')).body).toEqual({ code: 1, msg: '未开放注册' });

    const vip = await svc.db('groups').where({ name: 'vip' }).first('id');
    const saved = await request(svc.app)
      .post(`${API}?action=admin_update_settings`)
      .set('X-API-Token', session)
      .send({ site_name: '  小站图床 ', registration_enabled: true, default_group_id: vip.id });
    expect(saved.body).toEqual({
      code: 0,
      msg: '站点设置已保存',
      data: { site_name: '小站图床', registration_enabled: true, default_group: 'vip', fixed_by_env: { site_name: null, registration_enabled: null, default_group: null } },
    });
    expect((await request(svc.app).get(`${API}?action=features`)).body).toEqual({ code: 0, msg: '成功', data: { registration: true, site_name: '小站图床' } });
    const registered = await register(svc, 'newcomer');
    expect(registered.body).toMatchObject({ code: 0, msg: '注册成功' });
    expect((await request(svc.app).get(`${API}?action=profile`).set('X-API-Token', registered.body.data.token)).body.data.group).toBe('vip');
    // An admin-created user without a group lands there too; renaming the group keeps it the default.
    const created = await request(svc.app).post(`${API}?action=admin_create_user`).set('X-API-Token', session).send({ username: 'made', password: 'password-123' });
    expect(created.body.data.group).toBe('vip');
    await request(svc.app).post(`${API}?action=admin_update_group`).set('X-API-Token', session).send({ id: vip.id, name: 'gold' });
    expect((await settings()).body.data.default_group).toBe('gold');

    // An empty name goes back to none; refusals change nothing.
    const cleared = await request(svc.app).post(`${API}?action=admin_update_settings`).set('X-API-Token', session).send({ site_name: '' });
    expect(cleared.body.data.site_name).toBeNull();
    for (const [body, msg] of [
      [{ site_name: 'x'.repeat(65), registration_enabled: false }, '站点名称须为 1 到 64 个字符，且不能包含控制字符'],
      [{ site_name: 'a\u0007b' }, '站点名称须为 1 到 64 个字符，且不能包含控制字符'],
      [{ default_group_id: 999_999, registration_enabled: false }, '会员组不存在'],
      [{ registration_enabled: 'perhaps' }, '参数错误'],
    ] as const) {
      const res = await request(svc.app).post(`${API}?action=admin_update_settings`).set('X-API-Token', session).send(body);
      expect([body, res.body]).toEqual([body, { code: 1, msg }]);
    }
    expect((await settings()).body.data).toMatchObject({ site_name: null, registration_enabled: true, default_group: 'gold' });
  });
});

describe('with SITE_NAME, REGISTRATION_ENABLED and REGISTRATION_GROUP set', () => {
  const svc = useTestService({ SITE_NAME: 'Env Images', REGISTRATION_ENABLED: 'true', REGISTRATION_GROUP: 'vip' });

  test('when an admin reads or edits the settings, then each shows the environment value as fixed and an edit of one is refused with the message, storing nothing', async () => {
    const session = await adminSession(svc);
    const fixed = { site_name: 'SITE_NAME', registration_enabled: 'REGISTRATION_ENABLED', default_group: 'REGISTRATION_GROUP' };
    expect((await request(svc.app).get(`${API}?action=admin_settings`).set('X-API-Token', session)).body.data).toEqual({
      site_name: 'Env Images',
      registration_enabled: true,
      default_group: 'vip',
      fixed_by_env: fixed,
    });
    for (const body of [{ site_name: 'Mine' }, { registration_enabled: false }, { default_group_id: 1 }]) {
      const res = await request(svc.app).post(`${API}?action=admin_update_settings`).set('X-API-Token', session).send(body);
      expect([body, res.body]).toEqual([body, { code: 1, msg: '该设置由服务器环境变量决定，不能在此修改' }]);
      const withStatus = await request(svc.app).post(`${API}?action=admin_update_settings&http_errors=1`).set('X-API-Token', session).send(body);
      expect(withStatus.status).toBe(409);
    }
    expect(await svc.db('site_settings')).toEqual([]);
    expect((await request(svc.app).get(`${API}?action=features`)).body.data).toEqual({ registration: true, site_name: 'Env Images' });
    const registered = await register(svc, 'newcomer');
    expect((await request(svc.app).get(`${API}?action=profile`).set('X-API-Token', registered.body.data.token)).body.data.group).toBe('vip');
  });
});
