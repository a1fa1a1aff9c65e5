import request from 'supertest';
import { createApp, createServices } from '../src/app';
import { createMediaProcessor } from '../src/media/media-processor';
import { createMetrics } from '../src/metrics/metrics';
import pino from 'pino';
import { createTestUser, fixture, openTestService, useTestService, userAdminFor } from './support/harness';

// Sign-in, sessions, the account area's token, named tokens, passwords, registration.

const API = '/api/image.php';
const HOUR = 60 * 60 * 1000;
let offsetMs = 0;
const svc = useTestService({ SIGN_IN_FAILURES_PER_ACCOUNT: '3' }, { clock: () => new Date(Date.now() + offsetMs) });
beforeEach(() => {
  offsetMs = 0;
});

const read = (action: string, token?: string, query = '') => {
  const req = request(svc.app).get(`${API}?action=${action}${query}`);
  return token ? req.set('X-API-Token', token) : req;
};
const write = (action: string, token?: string) => {
  const req = request(svc.app).post(`${API}?action=${action}`);
  return token ? req.set('X-API-Token', token) : req;
};
const login = (username: string, password: string) => write('login').type('form').send({ username, password });

async function signedIn(username: string, password = 'password-123') {
  const res = await login(username, password);
  expect(res.body).toMatchObject({ code: 0, msg: '登录成功' });
  return res.body.data.token as string;
}

async function userWithPassword(name = 'alice', options: { isAdmin?: boolean; group?: string } = {}) {
  return createTestUser(svc.db, name, options.group, { password: 'password-123', isAdmin: options.isAdmin });
}

async function works(token: string): Promise<boolean> {
  const res = await read('list', token);
  if (res.body.code !== 0) expect(res.body).toEqual({ code: 1, msg: '请先登录' });
  return res.body.code === 0;
}

describe('sign-in', () => {
  test('when the name and password are right, then a session credential with its expiry works in X-API-Token, and logout ends it', async () => {
    const user = await userWithPassword();
    const res = await login('alice', 'password-123');
    expect(res.body).toEqual({
      code: 0,
      msg: '登录成功',
      data: { token: expect.stringMatching(/^[\w-]{43}$/), expire_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), user: { id: user.id, username: 'alice', is_admin: false }, time_zone: 'Asia/Shanghai' },
    });
    const session = res.body.data.token as string;
    expect(session).not.toBe(user.token);
    expect(await works(session)).toBe(true);
    expect(await svc.db('credentials').where({ user_id: user.id, kind: 'session' }).count({ n: '*' }).first()).toEqual({ n: expect.anything() });

    expect((await write('logout', session)).body).toEqual({ code: 0, msg: '已退出登录' });
    expect(await works(session)).toBe(false);
    expect(await works(user.token)).toBe(true);
    expect(await svc.db('credentials').where({ user_id: user.id, kind: 'session' })).toEqual([]);
  });

  test('when the password is wrong or the name unknown, then the same answer, and nothing is signed in', async () => {
    await userWithPassword();
    expect((await login('alice', 'wrong-password')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
    expect((await login('nobody', 'password-123')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
    expect((await login('x'.repeat(1000), 'password-123')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
    expect(await svc.db('credentials').where({ kind: 'session' })).toEqual([]);
  });

  test('when a user has no password (made by the CLI without one), then signing in is refused as any wrong password', async () => {
    await createTestUser(svc.db, 'tokenonly');
    expect((await login('tokenonly', 'anything-at-all')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
  });

  test('when the name or password is empty, or sent in the query only, then 请输入用户名和密码', async () => {
    await userWithPassword();
    expect((await login('', 'password-123')).body).toEqual({ code: 1, msg: '请输入用户名和密码' });
    expect((await login('alice', '')).body).toEqual({ code: 1, msg: '请输入用户名和密码' });
    expect((await login('   ', 'x')).body).toEqual({ code: 1, msg: '请输入用户名和密码' });
    // Passwords never travel in a URL: the query is not read.
    expect((await request(svc.app).post(`${API}?action=login&username=alice&password=password-123`)).body).toEqual({ code: 1, msg: '请输入用户名和密码' });
    expect((await write('login').send({ username: ['alice'], password: 'password-123' })).body).toEqual({ code: 1, msg: '参数错误' });
  });

  test('when an account has failed too often, then even the right password is refused with Retry-After until the window ends; other accounts still sign in', async () => {
    await userWithPassword();
    await userWithPassword('bob');
    for (let i = 0; i < 3; i += 1) expect((await login('alice', 'wrong-password')).body.msg).toBe('用户名或密码错误');
    const locked = await login('alice', 'password-123');
    expect(locked.body).toEqual({ code: 1, msg: '登录尝试过于频繁，请稍后再试' });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect((await login('bob', 'password-123')).body.code).toBe(0);
    // The same limit for a name that does not exist: the lock reveals nothing either.
    for (let i = 0; i < 3; i += 1) await login('ghost', 'wrong-password');
    expect((await login('ghost', 'wrong-password')).body).toEqual({ code: 1, msg: '登录尝试过于频繁，请稍后再试' });
    // The window ends (its counter expires): the right password works again and clears the failures.
    await svc.db('sign_in_limits').update({ expire: Date.now() - 1 });
    expect((await login('alice', 'password-123')).body.code).toBe(0);
  });

  test('when one address tries too often, then it is refused whatever the account; housekeeping drops ended windows', async () => {
    const strict = await openTestService({ SIGN_IN_ATTEMPTS_PER_ADDRESS: '2' });
    try {
      await createTestUser(strict.db, 'carol', undefined, { password: 'password-123' });
      const attempt = () => request(strict.app).post(`${API}?action=login`).send({ username: 'carol', password: 'password-123' });
      expect((await attempt()).body.code).toBe(0);
      expect((await attempt()).body.code).toBe(0);
      const refused = await attempt();
      expect(refused.body).toEqual({ code: 1, msg: '登录尝试过于频繁，请稍后再试' });
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      await strict.db('sign_in_limits').update({ expire: Date.now() - 1 });
      await strict.runHousekeeping();
      expect(await strict.db('sign_in_limits')).toEqual([]);
      expect((await attempt()).body.code).toBe(0);
    } finally {
      await strict.close();
    }
  });

  test('when the peer is a trusted proxy (loopback, by default), then X-Forwarded-For names the address that is limited', async () => {
    const strict = await openTestService({ SIGN_IN_ATTEMPTS_PER_ADDRESS: '2' });
    try {
      const attempt = (address: string) => request(strict.app).post(`${API}?action=login`).set('X-Forwarded-For', address).send({ username: 'nobody', password: 'wrong-password' });
      expect((await attempt('203.0.113.7')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
      expect((await attempt('203.0.113.7')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
      expect((await attempt('203.0.113.7')).body).toEqual({ code: 1, msg: '登录尝试过于频繁，请稍后再试' });
      expect((await attempt('203.0.113.8')).body).toEqual({ code: 1, msg: '用户名或密码错误' });
      const counted = await strict.db('sign_in_limits').where('key', 'like', 'address:%').orderBy('key').select('key', 'points');
      expect(counted).toEqual([
        { key: 'address:203.0.113.7', points: 3 },
        { key: 'address:203.0.113.8', points: 1 },
      ]);
    } finally {
      await strict.close();
    }
  });

  test('when the peer is not a configured proxy, then its X-Forwarded-For is ignored: 31 attempts under 31 spoofed addresses are limited as one address', async () => {
    // The test's own connection comes from loopback, which TRUSTED_PROXIES here leaves out: a client reaching the replica directly.
    const direct = await openTestService({ TRUSTED_PROXIES: '10.1.2.3' });
    try {
      const attempt = (i: number) =>
        request(direct.app).post(`${API}?action=login`).set('X-Forwarded-For', `198.51.100.${i}`).type('form').send({ username: `guess-${i}`, password: 'wrong-password' });
      for (let i = 1; i <= 30; i += 1) expect((await attempt(i)).body).toEqual({ code: 1, msg: '用户名或密码错误' });
      const refused = await attempt(31);
      expect(refused.body).toEqual({ code: 1, msg: '登录尝试过于频繁，请稍后再试' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      const counted = await direct.db('sign_in_limits').where('key', 'like', 'address:%').select('key', 'points');
      expect(counted).toEqual([{ key: expect.stringMatching(/^address:(::ffff:)?127\.0\.0\.1$/), points: 31 }]);
    } finally {
      await direct.close();
    }
  });

  test('when a session is past its expiry, then it is refused, and housekeeping removes it', async () => {
    await userWithPassword();
    const session = await signedIn('alice');
    offsetMs = 168 * HOUR + 1000;
    expect(await works(session)).toBe(false);
    await svc.runHousekeeping();
    expect(await svc.db('credentials').where({ kind: 'session' })).toEqual([]);
  });
});

describe('registration', () => {
  test('when registration is off (the default), then register is refused and no user is made', async () => {
    expect((await read('features')).body).toEqual({ code: 0, msg: '成功', data: { registration: false, site_name: null } });
    expect((await write('register').send({ username: 'eve', password: 'password-123' })).body).toEqual({ code: 1, msg: '未开放注册' });
    expect(await svc.db('users')).toEqual([]);
  });

  test('when registration is on, then a new user lands in the configured group, signed in; bad names and passwords are refused', async () => {
    const open = await openTestService({ REGISTRATION_ENABLED: 'true', REGISTRATION_GROUP: 'vip', REGISTRATIONS_PER_ADDRESS: '50' });
    try {
      const register = (username: unknown, password: unknown) => request(open.app).post(`${API}?action=register`).send({ username, password });
      expect((await request(open.app).get(`${API}?action=features`)).body.data).toEqual({ registration: true, site_name: null });
      const res = await register('eve', 'password-123');
      expect(res.body).toMatchObject({ code: 0, msg: '注册成功', data: { token: expect.any(String), user: { username: 'eve', is_admin: false } } });
      const profile = await request(open.app).get(`${API}?action=profile`).set('X-API-Token', res.body.data.token);
      expect(profile.body.data).toMatchObject({ username: 'eve', group: 'vip' });
      expect((await register('eve', 'password-456')).body).toEqual({ code: 1, msg: '用户名已被使用' });
      for (const name of ['', '   ', 'x'.repeat(65), 'x'.repeat(1000), 'a b', 'a\u0000b', '<script>']) {
        expect((await register(name, 'password-123')).body).toEqual({ code: 1, msg: '用户名须为 1 到 64 个字母、数字或 _.@-' });
      }
      expect((await register('frank', 'short')).body).toEqual({ code: 1, msg: '密码长度须为 8 到 128 个字符' });
      expect((await register('frank', 'p'.repeat(129))).body).toEqual({ code: 1, msg: '密码长度须为 8 到 128 个字符' });
      expect((await open.db('users').select('name')).map((row) => row.name)).toEqual(['eve']);
    } finally {
      await open.close();
    }
  });
});

describe("the account area's token", () => {
  test('when a signed-in user asks for the token, then the account token is shown; an API token cannot ask', async () => {
    const user = await userWithPassword();
    const session = await signedIn('alice');
    expect((await read('token', session)).body).toEqual({ code: 0, msg: '成功', data: { token: user.token, create_time: expect.any(String) } });
    expect((await read('token', user.token)).body).toEqual({ code: 1, msg: '请使用账号密码登录后再操作' });
    expect((await write('reset_token', user.token)).body).toEqual({ code: 1, msg: '请使用账号密码登录后再操作' });
    expect((await read('token')).body).toEqual({ code: 1, msg: '请先登录' });
  });

  test('when the token is reset, then the old one stops at once on every replica, the new one works and is shown', async () => {
    const user = await userWithPassword();
    const session = await signedIn('alice');
    // A second replica: its own app on the same database.
    const other = createApp({
      config: svc.config,
      db: svc.db,
      storage: svc.storage,
      media: createMediaProcessor(),
      metrics: createMetrics(),
      logger: pino({ level: 'silent' }),
    });
    expect((await request(other).get(`${API}?action=list`).set('X-API-Token', user.token)).body.code).toBe(0);

    const reset = await write('reset_token', session);
    expect(reset.body).toEqual({ code: 0, msg: '令牌已重置', data: { token: expect.stringMatching(/^[\w-]{43}$/), create_time: expect.any(String) } });
    const fresh = reset.body.data.token as string;
    expect(fresh).not.toBe(user.token);
    expect(await works(user.token)).toBe(false);
    expect((await request(other).get(`${API}?action=list`).set('X-API-Token', user.token)).body).toEqual({ code: 1, msg: '请先登录' });
    expect((await request(other).get(`${API}?action=list`).set('X-API-Token', fresh)).body.code).toBe(0);
    expect((await read('token', session)).body.data.token).toBe(fresh);
    // The session that reset it still works.
    expect(await works(session)).toBe(true);
  });

  test('when a token was made before tokens were sealed, or under another key, then it is not shown (null) but keeps working until reset', async () => {
    const user = await userWithPassword();
    const session = await signedIn('alice');
    await svc.db('credentials').where({ user_id: user.id, kind: 'account' }).update({ token_ciphertext: null });
    expect((await read('token', session)).body.data).toEqual({ token: null, create_time: expect.any(String) });
    expect(await works(user.token)).toBe(true);

    const { token } = await userAdminFor(svc.db).resetToken(user.id);
    const otherKey = createServices({
      config: { ...svc.config, tokenEncryptionKey: Buffer.alloc(32, 7) },
      db: svc.db,
      storage: svc.storage,
      media: createMediaProcessor(),
      metrics: createMetrics(),
      logger: pino({ level: 'silent' }),
    });
    expect(await otherKey.userAdmin.accountToken(user.id)).toEqual({ token: null, createdAt: expect.any(Date) });
    expect(await works(token)).toBe(true);
  });
});

describe('named tokens', () => {
  test('when a named token is made, then it is shown once, listed without its value, works, and stops when revoked', async () => {
    const user = await userWithPassword();
    const session = await signedIn('alice');
    const created = await write('create_token', session).send({ name: 'my script' });
    expect(created.body).toEqual({ code: 0, msg: '令牌已创建', data: { id: expect.any(Number), name: 'my script', token: expect.stringMatching(/^[\w-]{43}$/), create_time: expect.any(String) } });
    const { id, token } = created.body.data;
    expect(await works(token)).toBe(true);
    const listed = await read('tokens', session);
    expect(listed.body).toEqual({ code: 0, msg: '成功', data: { list: [{ id, name: 'my script', create_time: expect.any(String), last_used_time: expect.any(String) }] } });
    expect(JSON.stringify(listed.body)).not.toContain(token);
    // A named token is not a session: it cannot manage tokens.
    expect((await read('tokens', token)).body).toEqual({ code: 1, msg: '请使用账号密码登录后再操作' });

    expect((await write('revoke_token', session).send({ id })).body).toEqual({ code: 0, msg: '令牌已撤销' });
    expect(await works(token)).toBe(false);
    expect(await works(user.token)).toBe(true);
    expect((await write('revoke_token', session).send({ id })).body).toEqual({ code: 1, msg: '令牌不存在' });
  });

  test("when another user's token, the account token or a session is revoked by id, then 令牌不存在 and it keeps working", async () => {
    await userWithPassword();
    await userWithPassword('bob');
    const alice = await signedIn('alice');
    const bob = await signedIn('bob');
    const bobs = (await write('create_token', bob).send({ name: 'bob script' })).body.data;
    expect((await write('revoke_token', alice).send({ id: bobs.id })).body).toEqual({ code: 1, msg: '令牌不存在' });
    expect(await works(bobs.token)).toBe(true);
    const own = await svc.db('credentials').whereNot('kind', 'named').select('id');
    for (const row of own) expect((await write('revoke_token', alice).send({ id: row.id })).body).toEqual({ code: 1, msg: '令牌不存在' });
    expect(await works(alice)).toBe(true);
  });

  test('when names are bad or the user holds 50 tokens, then each is refused with its message and nothing is made', async () => {
    const user = await userWithPassword();
    const session = await signedIn('alice');
    for (const name of ['', '   ', 'x'.repeat(65), 'tab\there', undefined]) {
      expect((await write('create_token', session).send({ name })).body).toEqual({ code: 1, msg: '参数错误' });
    }
    await svc.db('credentials').insert(Array.from({ length: 50 }, (_, i) => ({ user_id: user.id, kind: 'named', name: `t${i}`, token_hash: String(i).padStart(64, '0') })));
    expect((await write('create_token', session).send({ name: 'one more' })).body).toEqual({ code: 1, msg: '令牌数量已达上限' });
    expect(await svc.db('credentials').where({ user_id: user.id, kind: 'named' }).count({ n: '*' }).first()).toMatchObject({ n: expect.anything() });
    expect(Number((await svc.db('credentials').where({ user_id: user.id, kind: 'named' }).count({ n: '*' }).first())!.n)).toBe(50);
  });
});

describe('passwords', () => {
  test('when the current password is right, then the new one applies and every other session ends; a wrong current one changes nothing', async () => {
    const user = await userWithPassword();
    const first = await signedIn('alice');
    const second = await signedIn('alice');
    expect((await write('change_password', second).send({ password: 'not-the-password', new_password: 'new-password-1' })).body).toEqual({ code: 1, msg: '当前密码不正确' });
    expect((await write('change_password', second).send({ password: 'password-123', new_password: 'short' })).body).toEqual({ code: 1, msg: '密码长度须为 8 到 128 个字符' });
    expect(await works(first)).toBe(true);

    expect((await write('change_password', second).send({ password: 'password-123', new_password: 'new-password-1' })).body).toEqual({ code: 0, msg: '密码已修改' });
    expect(await works(first)).toBe(false);
    expect(await works(second)).toBe(true);
    expect(await works(user.token)).toBe(true);
    expect((await login('alice', 'password-123')).body.code).toBe(1);
    expect((await login('alice', 'new-password-1')).body.code).toBe(0);
  });
});

describe('upload clients', () => {
  /** `{json:a.b}` as ShareX resolves it against a JSON answer. */
  function sharexValue(template: string, answer: unknown): unknown {
    const path = /^\{json:([\w.]+)\}$/.exec(template)![1]!;
    return path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], answer);
  }

  test('when ShareX imports the .sxcu, then the exact request it sends stores the image, and its URL, thumbnail, deletion and error templates resolve', async () => {
    await userWithPassword();
    const session = await signedIn('alice');
    const res = await write('client_config', session).send({ client: 'sharex' });
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="img.test (alice).sxcu"');
    expect(res.headers['cache-control']).toBe('no-store');
    const sxcu = JSON.parse(res.text);
    expect(sxcu).toEqual({
      Version: expect.any(String),
      Name: 'img.test 图床 (alice)',
      DestinationType: 'ImageUploader',
      RequestMethod: 'POST',
      RequestURL: 'http://img.test/api/image.php?action=upload&http_errors=1',
      Headers: { 'X-API-Token': expect.stringMatching(/^[\w-]{43}$/) },
      Body: 'MultipartFormData',
      FileFormName: 'file',
      URL: '{json:data.url}',
      ThumbnailURL: '{json:data.thumb_url}',
      DeletionURL: '{json:data.links.delete}',
      ErrorMessage: '{json:msg}',
    });

    // What ShareX sends: a multipart POST to RequestURL with its headers, the file under FileFormName.
    const sent = await request(svc.app)
      .post(new URL(sxcu.RequestURL).pathname + new URL(sxcu.RequestURL).search)
      .set(sxcu.Headers)
      .attach(sxcu.FileFormName, fixture('photo.webp'));
    expect(sent.body.code).toBe(0);
    expect(sharexValue(sxcu.URL, sent.body)).toBe(sent.body.data.url);
    expect(sharexValue(sxcu.ThumbnailURL, sent.body)).toBe(sent.body.data.thumb_url);
    const deletion = String(sharexValue(sxcu.DeletionURL, sent.body));
    expect(deletion).toMatch(/^http:\/\/img\.test\/api\/delete\.php\?id=\d+&sig=[\w-]{32}$/);
    // A bare GET (a link preview) deletes nothing.
    expect((await request(svc.app).get(deletion.replace('http://img.test', ''))).status).toBe(200);
    expect((await read('list', sxcu.Headers['X-API-Token'])).body.data.total).toBe(1);

    const refused = await request(svc.app).post(new URL(sxcu.RequestURL).pathname + new URL(sxcu.RequestURL).search).set(sxcu.Headers).attach(sxcu.FileFormName, fixture('drawing.svg'));
    expect(refused.status).toBe(415);
    expect(sharexValue(sxcu.ErrorMessage, refused.body)).toBe('不支持的文件类型');

    // Its token is a named token of its own: listed, and revocable without touching anything else.
    const tokens = (await read('tokens', session)).body.data.list;
    expect(tokens).toEqual([expect.objectContaining({ name: expect.stringMatching(/^ShareX \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/) })]);
  });

  test('when PicGo uses the web-uploader config, then the request it sends stores the image and jsonPath finds the URL', async () => {
    await userWithPassword();
    const session = await signedIn('alice');
    const res = await write('client_config', session).type('form').send({ client: 'picgo' });
    expect(res.headers['content-disposition']).toBe('attachment; filename=picgo-img.test.json');
    const config = JSON.parse(res.text);
    const uploader = config.picBed['web-uploader'];
    expect(config.picBed.current).toBe('web-uploader');
    expect(uploader).toEqual({ url: 'http://img.test/api/image.php?action=upload', paramName: 'file', jsonPath: 'data.url', customHeader: expect.any(String), customBody: '' });

    const url = new URL(uploader.url);
    const sent = await request(svc.app)
      .post(url.pathname + url.search)
      .set(JSON.parse(uploader.customHeader))
      .attach(uploader.paramName, fixture('tiny.png'));
    const found = (uploader.jsonPath as string).split('.').reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], sent.body);
    expect(found).toMatch(/^http:\/\/img\.test\/i\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.png$/);
  });

  test('when the client is unknown or the caller is not signed in, then nothing is made', async () => {
    const user = await userWithPassword();
    const session = await signedIn('alice');
    expect((await write('client_config', session).send({ client: 'flameshot' })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await write('client_config', user.token).send({ client: 'sharex' })).body).toEqual({ code: 1, msg: '请使用账号密码登录后再操作' });
    expect(await svc.db('credentials').where({ kind: 'named' })).toEqual([]);
  });
});

describe('disabled users', () => {
  test('when a user is disabled, then the account token, named tokens and sessions all stop at once; enabling brings the tokens back', async () => {
    const user = await userWithPassword();
    const session = await signedIn('alice');
    const named = (await write('create_token', session).send({ name: 'cli' })).body.data.token;
    await userAdminFor(svc.db).updateUser(user.id, { disabled: true });
    for (const token of [user.token, named, session]) expect(await works(token)).toBe(false);
    expect((await login('alice', 'password-123')).body).toEqual({ code: 1, msg: '账号已停用' });
    // An upload with a disabled user's token stores nothing.
    const upload = await write('upload', user.token).attach('file', fixture('tiny.png'));
    expect(upload.body).toEqual({ code: 1, msg: '请先登录' });
    expect(await svc.db('images')).toEqual([]);

    await userAdminFor(svc.db).updateUser(user.id, { disabled: false });
    expect(await works(user.token)).toBe(true);
    expect(await works(named)).toBe(true);
    expect(await works(session)).toBe(false);
  });
});
