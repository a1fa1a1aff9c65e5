import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { loadOpenApi, rawExchange, type OpenApiValidator, type SpecTarget } from '@platform/kit/testing';
import { Messages } from '../src/errors/messages';
import { installClientErrorEnvelope } from '../src/http/client-error';
import { createTestUser, fixture, openTestService, type TestService } from './support/harness';

/**
 * openapi.yaml held to the service's real answers: every operation, every action, success and each
 * documented failure, sent through the app and checked (status, Content-Type, headers, body) against
 * the schema the document declares for it.
 */

const SPEC_FILE = path.join(__dirname, '..', 'openapi.yaml');
const API = '/api/image.php';
const READ: SpecTarget = { path: API, method: 'get' };
const WRITE: SpecTarget = { path: API, method: 'post' };

let svc: TestService;
let spec: OpenApiValidator;

beforeAll(async () => {
  [svc, spec] = await Promise.all([openTestService(), loadOpenApi(SPEC_FILE)]);
  // What main.ts installs: parser refusals answered in the envelope.
  installClientErrorEnvelope(svc.server, pino({ level: 'silent' }));
});
afterAll(async () => svc?.close());
beforeEach(async () => svc.reset());

const read = (action: string, query = '') => request(svc.app).get(`${API}?action=${action}${query}`);
const write = (action: string, query = '') => request(svc.app).post(`${API}?action=${action}${query}`);
const local = (absoluteUrl: string) => absoluteUrl.replace('http://img.test', '');

/** A binary answer, read whole into res.body. */
function getBinary(url: string) {
  return request(svc.app)
    .get(url)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

/** An application outcome: HTTP 200, the exact envelope, and the action's schema. */
function expectEnvelope(res: request.Response, target: SpecTarget, envelope: { code: 0 | 1; msg: string; data?: unknown }) {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  if (envelope.data === undefined && envelope.code === 1) expect(res.body).toEqual(envelope);
  else expect(res.body).toMatchObject(envelope);
  spec.expectResponseMatchesSpec(res, target);
}

async function upload(token: string, file = 'tiny.png') {
  const res = await write('upload').set('X-API-Token', token).attach('file', fixture(file));
  expect(res.body.code).toBe(0);
  return res.body.data as { id: number; url: string; thumb_url: string; links: { delete: string } };
}

describe('the document', () => {
  test('when openapi.yaml is loaded, then swagger-parser accepts it as OpenAPI 3.1 and no path key carries a query string', () => {
    expect(spec.document.openapi).toBe('3.1.0');
    expect(Object.keys(spec.document.paths).filter((key) => key.includes('?'))).toEqual([]);
  });

  test('when openapi.yaml is read, then every envelope message the code can send is documented', () => {
    const text = fs.readFileSync(SPEC_FILE, 'utf8');
    expect(Object.values(Messages).filter((message) => !text.includes(message))).toEqual([]);
  });

  test('when an operation is chosen by action, then x-action-schemas covers exactly its action enum', () => {
    for (const target of [READ, WRITE]) {
      const operation = spec.operation(target.path, target.method);
      const actionEnum = operation.parameters?.find((parameter) => parameter.name === 'action')?.schema?.enum;
      expect(Object.keys(operation['x-action-schemas'] ?? {}).sort()).toEqual([...(actionEnum as string[])].sort());
    }
  });
});

describe('GET /api/image.php', () => {
  test('when list succeeds, then the page of images matches ListSuccess', async () => {
    const user = await createTestUser(svc.db);
    await upload(user.token);
    const res = await read('list', '&limit=500').set('X-API-Token', user.token);
    expectEnvelope(res, { ...READ, action: 'list' }, { code: 0, msg: '成功', data: { total: 1, page: 1, limit: 100 } });
    expect(res.body.data.list).toHaveLength(1);
  });

  test('when trash succeeds, then the bin page matches TrashSuccess', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    expect((await write('delete').set('X-API-Token', user.token).send({ id: image.id })).body.code).toBe(0);
    const res = await read('trash').set('X-API-Token', user.token);
    expectEnvelope(res, { ...READ, action: 'trash' }, { code: 0, msg: '成功', data: { total: 1, page: 1, limit: 20 } });
    expect(res.body.data.list[0]).toMatchObject({ id: image.id, original_name: 'tiny.png' });
  });

  test('when categories succeeds, then the list matches CategoriesSuccess', async () => {
    const user = await createTestUser(svc.db);
    const res = await read('categories').set('X-API-Token', user.token);
    expectEnvelope(res, { ...READ, action: 'categories' }, { code: 0, msg: '成功' });
    expect(res.body.data.list[0]).toMatchObject({ is_default: true, image_count: 0 });
  });

  test('when profile succeeds, then it matches ProfileSuccess', async () => {
    const user = await createTestUser(svc.db);
    const res = await read('profile').set('X-API-Token', user.token);
    expectEnvelope(res, { ...READ, action: 'profile' }, { code: 0, msg: '成功', data: { username: user.name, group: 'default', used_bytes: 0 } });
  });

  test.each(['list', 'trash', 'categories', 'profile'])('when %s is sent without a token, then 请先登录 matches its failure schema', async (action) => {
    expectEnvelope(await read(action), { ...READ, action }, { code: 1, msg: '请先登录' });
  });

  test.each(['list', 'trash', 'categories', 'profile'])('when %s carries a malformed JSON body, then 请求格式错误 matches its failure schema', async (action) => {
    const user = await createTestUser(svc.db);
    const res = await read(action).set('X-API-Token', user.token).set('Content-Type', 'application/json').send('{"broken');
    expectEnvelope(res, { ...READ, action }, { code: 1, msg: '请求格式错误' });
  });

  test.each(['list', 'trash'])('when %s gets a bad page or an unknown category, then 参数错误 and 分类不存在 match its failure schema', async (action) => {
    const user = await createTestUser(svc.db);
    expectEnvelope(await read(action, '&page=0').set('X-API-Token', user.token), { ...READ, action }, { code: 1, msg: '参数错误' });
    expectEnvelope(await read(action, '&category_id=999').set('X-API-Token', user.token), { ...READ, action }, { code: 1, msg: '分类不存在' });
  });

  test('when GET names an unknown action or a POST action, then 不支持的操作 matches UnsupportedAction', async () => {
    const user = await createTestUser(svc.db);
    for (const action of ['nope', 'upload', 'delete']) {
      expectEnvelope(await read(action).set('X-API-Token', user.token), READ, { code: 1, msg: '不支持的操作' });
    }
  });
});

describe('POST /api/image.php', () => {
  test('when upload succeeds, then the image matches UploadSuccess', async () => {
    const user = await createTestUser(svc.db);
    const res = await write('upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
    expectEnvelope(res, { ...WRITE, action: 'upload' }, { code: 0, msg: '上传成功', data: { original_name: 'photo.webp', width: 800, height: 600 } });
  });

  describe('when upload fails, then each documented message matches UploadFailure', () => {
    const cases: Array<[string, (user: { id: number; token: string }) => Promise<request.Response>, string]> = [
      ['no token', () => write('upload').attach('file', fixture('tiny.png')), '请先登录'],
      ['no file part', (user) => write('upload').set('X-API-Token', user.token).field('category_id', '1'), '请选择要上传的文件'],
      ['an empty file', (user) => write('upload').set('X-API-Token', user.token).attach('file', Buffer.alloc(0), 'empty.png'), '文件为空（0 字节），请选择有内容的图片'],
      [
        'a truncated multipart body',
        (user) =>
          write('upload')
            .set('X-API-Token', user.token)
            .set('Content-Type', 'multipart/form-data; boundary=XYZ')
            .send('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc'),
        '请求格式错误',
      ],
      ['a category_id that is not a number', (user) => write('upload').set('X-API-Token', user.token).field('category_id', 'abc').attach('file', fixture('tiny.png')), '参数错误'],
      ['an unknown category', (user) => write('upload').set('X-API-Token', user.token).field('category_id', '999').attach('file', fixture('tiny.png')), '分类不存在'],
      ['an SVG', (user) => write('upload').set('X-API-Token', user.token).attach('file', fixture('drawing.svg')), '不支持的文件类型'],
      ['a 100-megapixel PNG', (user) => write('upload').set('X-API-Token', user.token).attach('file', fixture('huge-100mp.png')), '图片尺寸超出限制'],
      ['a truncated JPEG', (user) => write('upload').set('X-API-Token', user.token).attach('file', fixture('truncated.jpg')), '图片文件已损坏'],
      [
        'a file over the group limit',
        async (user) => {
          await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 1000 });
          return write('upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
        },
        '文件大小超出限制',
      ],
      [
        'a full quota',
        async (user) => {
          await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: 1000 });
          return write('upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
        },
        '存储空间不足',
      ],
    ];
    test.each(cases)('%s', async (_name, send, msg) => {
      const user = await createTestUser(svc.db);
      expectEnvelope(await send(user), { ...WRITE, action: 'upload' }, { code: 1, msg });
    });
  });

  test('when delete, restore and purge succeed in turn, then each matches its success schema', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    expectEnvelope(await write('delete').set('X-API-Token', user.token).type('form').send({ id: String(image.id) }), { ...WRITE, action: 'delete' }, { code: 0, msg: '删除成功' });
    expectEnvelope(await write('restore', `&id=${image.id}`).set('X-API-Token', user.token), { ...WRITE, action: 'restore' }, { code: 0, msg: '恢复成功' });
    expect((await write('delete').set('X-API-Token', user.token).send({ id: image.id })).body.code).toBe(0);
    expectEnvelope(await write('purge').set('X-API-Token', user.token).field('id', String(image.id)), { ...WRITE, action: 'purge' }, { code: 0, msg: '已彻底删除' });
  });

  test.each(['delete', 'restore', 'purge'])('when %s fails, then 请先登录, 参数错误, 图片不存在 and 请求格式错误 match its failure schema', async (action) => {
    const user = await createTestUser(svc.db);
    const target = { ...WRITE, action };
    expectEnvelope(await write(action, '&id=1'), target, { code: 1, msg: '请先登录' });
    expectEnvelope(await write(action).set('X-API-Token', user.token), target, { code: 1, msg: '参数错误' });
    expectEnvelope(await write(action).set('X-API-Token', user.token).attach('file', fixture('tiny.png')), target, { code: 1, msg: '参数错误' });
    expectEnvelope(await write(action, '&id=999').set('X-API-Token', user.token), target, { code: 1, msg: '图片不存在' });
    expectEnvelope(await write(action).set('X-API-Token', user.token).set('Content-Type', 'application/json').send('{"id":'), target, { code: 1, msg: '请求格式错误' });
  });

  test('when create_category succeeds, then it matches CreateCategorySuccess; a second time, 分类已存在 matches CreateCategoryFailure', async () => {
    const user = await createTestUser(svc.db);
    const target = { ...WRITE, action: 'create_category' };
    expectEnvelope(await write('create_category').set('X-API-Token', user.token).send({ name: ' 截图 ' }), target, { code: 0, msg: '分类创建成功', data: { name: '截图' } });
    expectEnvelope(await write('create_category', `&name=${encodeURIComponent('截图')}`).set('X-API-Token', user.token), target, { code: 1, msg: '分类已存在' });
  });

  test('when create_category fails, then 请先登录, 参数错误 and 请求格式错误 match CreateCategoryFailure', async () => {
    const user = await createTestUser(svc.db);
    const target = { ...WRITE, action: 'create_category' };
    expectEnvelope(await write('create_category').send({ name: 'x' }), target, { code: 1, msg: '请先登录' });
    expectEnvelope(await write('create_category').set('X-API-Token', user.token).send({ name: '   ' }), target, { code: 1, msg: '参数错误' });
    expectEnvelope(await write('create_category').set('X-API-Token', user.token).type('form').send('name=a&name=b'), target, { code: 1, msg: '参数错误' });
    expectEnvelope(await write('create_category').set('X-API-Token', user.token).set('Content-Type', 'application/json').send('[1,'), target, { code: 1, msg: '请求格式错误' });
  });

  test('when POST names an unknown action or a GET action, then 不支持的操作 matches UnsupportedAction', async () => {
    const user = await createTestUser(svc.db);
    for (const action of ['nope', 'list', 'profile']) {
      expectEnvelope(await write(action).set('X-API-Token', user.token), WRITE, { code: 1, msg: '不支持的操作' });
    }
  });

  test('when a preflight OPTIONS arrives, then 204 with the documented CORS headers and no body', async () => {
    const res = await request(svc.app).options(API).set('Origin', 'https://example.org').set('Access-Control-Request-Method', 'POST');
    expect(res.status).toBe(204);
    spec.expectResponseMatchesSpec(res, { path: API, method: 'options' });
  });
});

describe('extensions: organising, sign-in, the account area, admin', () => {
  /** A user with a password, signed in: the session credential. */
  async function session(name = 'alice', options: { isAdmin?: boolean } = {}) {
    const user = await createTestUser(svc.db, name, undefined, { password: 'password-123', ...options });
    const res = await write('login').send({ username: name, password: 'password-123' });
    expectEnvelope(res, { ...WRITE, action: 'login' }, { code: 0, msg: '登录成功' });
    return { ...user, session: res.body.data.token as string };
  }

  test('when delete, restore and purge get ids, then the per-id answers match BulkSuccess; too many ids match the failure', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    for (const action of ['delete', 'restore', 'delete', 'purge']) {
      expectEnvelope(await write(action).set('X-API-Token', user.token).send({ ids: [image.id, 999] }), { ...WRITE, action }, { code: 0, msg: '成功', data: { succeeded: 1, failed: 1 } });
    }
    for (const action of ['delete', 'restore', 'purge']) {
      expectEnvelope(await write(action).set('X-API-Token', user.token).send({ ids: Array.from({ length: 1001 }, (_, i) => i + 1) }), { ...WRITE, action }, { code: 1, msg: '一次最多处理 1000 张图片' });
    }
  });

  test('when images are moved and categories renamed and deleted, then each answer matches its schema', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const created = await write('create_category').set('X-API-Token', user.token).send({ name: '旅行' });
    const categoryId = created.body.data.id;
    expectEnvelope(await write('move').set('X-API-Token', user.token).send({ ids: [image.id], category_id: categoryId }), { ...WRITE, action: 'move' }, { code: 0, msg: '成功' });
    expectEnvelope(await write('move').set('X-API-Token', user.token).send({ ids: [image.id], category_id: 999 }), { ...WRITE, action: 'move' }, { code: 1, msg: '分类不存在' });
    expectEnvelope(await write('rename').set('X-API-Token', user.token).send({ id: image.id, name: '海边.png' }), { ...WRITE, action: 'rename' }, { code: 0, msg: '图片已重命名', data: { original_name: '海边.png' } });
    expectEnvelope(await write('rename').set('X-API-Token', user.token).send({ id: image.id, name: ' ' }), { ...WRITE, action: 'rename' }, { code: 1, msg: '图片名称不能为空' });
    expectEnvelope(await write('set_expiry').set('X-API-Token', user.token).send({ id: image.id, expires_in: 3600 }), { ...WRITE, action: 'set_expiry' }, { code: 0, msg: '过期时间已设置' });
    expectEnvelope(await write('set_expiry').set('X-API-Token', user.token).send({ id: image.id }), { ...WRITE, action: 'set_expiry' }, { code: 0, msg: '过期时间已清除', data: { expires_at: null } });
    expectEnvelope(await write('set_expiry').set('X-API-Token', user.token).send({ id: image.id, expires_in: 30 }), { ...WRITE, action: 'set_expiry' }, { code: 1, msg: '过期时间须在 1 分钟之后、10 年之内' });
    expectEnvelope(await write('rename_category').set('X-API-Token', user.token).send({ id: categoryId, name: '出行' }), { ...WRITE, action: 'rename_category' }, { code: 0, msg: '分类已重命名' });
    expectEnvelope(await write('rename_category').set('X-API-Token', user.token).send({ id: 999, name: 'x' }), { ...WRITE, action: 'rename_category' }, { code: 1, msg: '分类不存在' });
    expectEnvelope(await write('delete_category').set('X-API-Token', user.token).send({ id: categoryId }), { ...WRITE, action: 'delete_category' }, { code: 0, msg: '分类已删除', data: { moved: 1 } });
    const defaultId = (await read('categories').set('X-API-Token', user.token)).body.data.list[0].id;
    expectEnvelope(await write('delete_category').set('X-API-Token', user.token).send({ id: defaultId }), { ...WRITE, action: 'delete_category' }, { code: 1, msg: '默认分类不能删除' });
  });

  test('when features, login, register and logout are used, then each answer (and the throttled one with Retry-After) matches its schema', async () => {
    expectEnvelope(await read('features'), { ...READ, action: 'features' }, { code: 0, msg: '成功', data: { registration: false } });
    expectEnvelope(await write('register').send({ username: 'eve', password: 'password-123' }), { ...WRITE, action: 'register' }, { code: 1, msg: '未开放注册' });
    const { session: token } = await session();
    expectEnvelope(await write('login').send({ username: 'alice', password: 'nope-nope' }), { ...WRITE, action: 'login' }, { code: 1, msg: '用户名或密码错误' });
    expectEnvelope(await write('login').send({ username: '', password: '' }), { ...WRITE, action: 'login' }, { code: 1, msg: '请输入用户名和密码' });
    for (let i = 0; i < 5; i += 1) await write('login').send({ username: 'locked', password: 'wrong-wrong' });
    const throttled = await write('login').send({ username: 'locked', password: 'wrong-wrong' });
    expectEnvelope(throttled, { ...WRITE, action: 'login' }, { code: 1, msg: '登录尝试过于频繁，请稍后再试' });
    expect(throttled.headers['retry-after']).toMatch(/^\d+$/);
    expectEnvelope(await write('logout').set('X-API-Token', token), { ...WRITE, action: 'logout' }, { code: 0, msg: '已退出登录' });
    expectEnvelope(await write('logout').set('X-API-Token', token), { ...WRITE, action: 'logout' }, { code: 1, msg: '请先登录' });

    const open = await openTestService({ REGISTRATION_ENABLED: 'true' });
    try {
      const registered = await request(open.app).post(`${API}?action=register`).send({ username: 'eve', password: 'password-123' });
      expectEnvelope(registered, { ...WRITE, action: 'register' }, { code: 0, msg: '注册成功' });
      expectEnvelope(await request(open.app).post(`${API}?action=register`).send({ username: 'eve', password: 'password-123' }), { ...WRITE, action: 'register' }, { code: 1, msg: '用户名已被使用' });
    } finally {
      await open.close();
    }
  });

  test('when the account area is used, then token, reset_token, tokens, create_token, revoke_token and change_password match their schemas; a token is refused', async () => {
    const alice = await session();
    for (const action of ['token', 'tokens']) {
      expectEnvelope(await read(action).set('X-API-Token', alice.session), { ...READ, action }, { code: 0, msg: '成功' });
      expectEnvelope(await read(action).set('X-API-Token', alice.token), { ...READ, action }, { code: 1, msg: '请使用账号密码登录后再操作' });
    }
    expectEnvelope(await write('reset_token').set('X-API-Token', alice.session), { ...WRITE, action: 'reset_token' }, { code: 0, msg: '令牌已重置' });
    expectEnvelope(await write('reset_token').set('X-API-Token', alice.token), { ...WRITE, action: 'reset_token' }, { code: 1, msg: '请先登录' });
    const created = await write('create_token').set('X-API-Token', alice.session).send({ name: 'script' });
    expectEnvelope(created, { ...WRITE, action: 'create_token' }, { code: 0, msg: '令牌已创建' });
    expectEnvelope(await write('create_token').set('X-API-Token', alice.session).send({ name: '' }), { ...WRITE, action: 'create_token' }, { code: 1, msg: '参数错误' });
    expectEnvelope(await write('revoke_token').set('X-API-Token', alice.session).send({ id: created.body.data.id }), { ...WRITE, action: 'revoke_token' }, { code: 0, msg: '令牌已撤销' });
    expectEnvelope(await write('revoke_token').set('X-API-Token', alice.session).send({ id: created.body.data.id }), { ...WRITE, action: 'revoke_token' }, { code: 1, msg: '令牌不存在' });
    expectEnvelope(await write('change_password').set('X-API-Token', alice.session).send({ password: 'wrong-one', new_password: 'password-456' }), { ...WRITE, action: 'change_password' }, { code: 1, msg: '当前密码不正确' });
    expectEnvelope(await write('change_password').set('X-API-Token', alice.session).send({ password: 'password-123', new_password: 'password-456' }), { ...WRITE, action: 'change_password' }, { code: 0, msg: '密码已修改' });
  });

  test('when client_config answers a ShareX or PicGo file, or refuses, then each matches ClientConfigResponse', async () => {
    const alice = await session();
    for (const client of ['sharex', 'picgo']) {
      const res = await write('client_config').set('X-API-Token', alice.session).send({ client });
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename=/);
      spec.expectResponseMatchesSpec(res, { ...WRITE, action: 'client_config' });
    }
    expectEnvelope(await write('client_config').set('X-API-Token', alice.session).send({ client: 'other' }), { ...WRITE, action: 'client_config' }, { code: 1, msg: '参数错误' });
  });

  test('when an admin manages users and groups, then each answer matches its schema; a non-admin gets 没有权限', async () => {
    const admin = await session('root', { isAdmin: true });
    const plain = await session('plain');
    const as = (token: string) => ({ read: (action: string) => read(action).set('X-API-Token', token), write: (action: string) => write(action).set('X-API-Token', token) });
    for (const action of ['admin_users', 'admin_groups']) {
      expectEnvelope(await as(admin.session).read(action), { ...READ, action }, { code: 0, msg: '成功' });
      expectEnvelope(await as(plain.session).read(action), { ...READ, action }, { code: 1, msg: '没有权限' });
    }
    const user = await as(admin.session).write('admin_create_user').send({ username: 'carol', password: 'password-123' });
    expectEnvelope(user, { ...WRITE, action: 'admin_create_user' }, { code: 0, msg: '用户已创建' });
    expectEnvelope(await as(admin.session).write('admin_create_user').send({ username: 'carol', password: 'password-123' }), { ...WRITE, action: 'admin_create_user' }, { code: 1, msg: '用户名已被使用' });
    expectEnvelope(await as(admin.session).write('admin_update_user').send({ id: user.body.data.id, disabled: true }), { ...WRITE, action: 'admin_update_user' }, { code: 0, msg: '用户已更新' });
    expectEnvelope(await as(admin.session).write('admin_update_user').send({ id: admin.id, disabled: true }), { ...WRITE, action: 'admin_update_user' }, { code: 1, msg: '至少要保留一名可用的管理员' });
    const group = await as(admin.session).write('admin_create_group').send({ name: 'pro', max_file_size: 1024, quota_bytes: 4096 });
    expectEnvelope(group, { ...WRITE, action: 'admin_create_group' }, { code: 0, msg: '会员组已创建' });
    expectEnvelope(await as(plain.session).write('admin_create_group').send({ name: 'x', max_file_size: 1, quota_bytes: 1 }), { ...WRITE, action: 'admin_create_group' }, { code: 1, msg: '没有权限' });
    expectEnvelope(await as(admin.session).write('admin_update_group').send({ id: group.body.data.id, keep_metadata: true }), { ...WRITE, action: 'admin_update_group' }, { code: 0, msg: '会员组已更新' });
    expectEnvelope(await as(admin.session).write('admin_update_group').send({ id: 999, quota_bytes: 1 }), { ...WRITE, action: 'admin_update_group' }, { code: 1, msg: '会员组不存在' });
  });

  test('when an admin lists, bins and purges every image, bans uploads and edits the settings, then each answer matches its schema', async () => {
    const admin = await session('root', { isAdmin: true });
    const bob = await session('bob');
    const as = { read: (action: string, query = '') => read(action, query).set('X-API-Token', admin.session), write: (action: string) => write(action).set('X-API-Token', admin.session) };
    const stored = await upload(bob.token);
    const binned = await upload(bob.token, 'tiny.gif'); // another picture: the same again would be answered with the first (deduplication)
    expectEnvelope(await as.write('admin_bin_images').send({ ids: [binned.id, 999] }), { ...WRITE, action: 'admin_bin_images' }, { code: 0, msg: '成功', data: { succeeded: 1, failed: 1 } });
    expectEnvelope(await as.read('admin_images', '&username=bob'), { ...READ, action: 'admin_images' }, { code: 0, msg: '成功', data: { total: 2 } });
    expectEnvelope(await as.read('admin_images', '&type=svg'), { ...READ, action: 'admin_images' }, { code: 1, msg: '不支持的文件类型' });
    expectEnvelope(await as.read('admin_images', '&username=nobody'), { ...READ, action: 'admin_images' }, { code: 1, msg: '用户不存在' });
    expectEnvelope(await read('admin_images').set('X-API-Token', bob.session), { ...READ, action: 'admin_images' }, { code: 1, msg: '没有权限' });
    expectEnvelope(await as.write('admin_purge_images').send({ ids: [stored.id, binned.id] }), { ...WRITE, action: 'admin_purge_images' }, { code: 0, msg: '成功', data: { succeeded: 2, failed: 0 } });
    expectEnvelope(await as.write('admin_purge_images').send({ ids: [] }), { ...WRITE, action: 'admin_purge_images' }, { code: 1, msg: '参数错误' });

    expectEnvelope(await as.write('admin_ban_uploads').send({ id: bob.id, banned: true }), { ...WRITE, action: 'admin_ban_uploads' }, { code: 0, msg: '上传权限已更新', data: { uploads_banned: true } });
    const refused = await write('upload').set('X-API-Token', bob.token).attach('file', fixture('tiny.png'));
    expectEnvelope(refused, { ...WRITE, action: 'upload' }, { code: 1, msg: '该账号已被管理员禁止上传图片' });
    expectEnvelope(await as.write('admin_ban_uploads').send({ id: 999, banned: false }), { ...WRITE, action: 'admin_ban_uploads' }, { code: 1, msg: '用户不存在' });

    expectEnvelope(await as.read('admin_settings'), { ...READ, action: 'admin_settings' }, { code: 0, msg: '成功', data: { site_name: null } });
    expectEnvelope(await as.write('admin_update_settings').send({ site_name: '小站', registration_enabled: true }), { ...WRITE, action: 'admin_update_settings' }, { code: 0, msg: '站点设置已保存', data: { site_name: '小站' } });
    expectEnvelope(await as.write('admin_update_settings').send({ site_name: 'a\u0001' }), { ...WRITE, action: 'admin_update_settings' }, { code: 1, msg: '站点名称须为 1 到 64 个字符，且不能包含控制字符' });
    expectEnvelope(await read('features'), { ...READ, action: 'features' }, { code: 0, msg: '成功', data: { registration: true, site_name: '小站' } });
    const fixed = await openTestService({ SITE_NAME: 'Fixed' });
    try {
      const root = await createTestUser(fixed.db, 'root', undefined, { password: 'password-123', isAdmin: true });
      const signedIn = await request(fixed.app).post(`${API}?action=login`).send({ username: root.name, password: 'password-123' });
      const refusedEdit = await request(fixed.app).post(`${API}?action=admin_update_settings`).set('X-API-Token', signedIn.body.data.token).send({ site_name: 'Mine' });
      expectEnvelope(refusedEdit, { ...WRITE, action: 'admin_update_settings' }, { code: 1, msg: '该设置由服务器环境变量决定，不能在此修改' });
    } finally {
      await fixed.close();
    }
  });
});

describe('/api/delete.php', () => {
  test('when the deletion link is opened and confirmed, then the pages match the document; a spent or forged link is the 404 page', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const target = (method: 'get' | 'post') => ({ path: '/api/delete.php', method });
    const asked = await request(svc.app).get(local(image.links.delete));
    expect(asked.status).toBe(200);
    spec.expectResponseMatchesSpec(asked, target('get'));
    const done = await request(svc.app).post(local(image.links.delete));
    expect(done.status).toBe(200);
    spec.expectResponseMatchesSpec(done, target('post'));
    for (const method of ['get', 'post'] as const) {
      const spent = await request(svc.app)[method](local(image.links.delete));
      expect(spent.status).toBe(404);
      spec.expectResponseMatchesSpec(spent, target(method));
    }
  });
});

describe('unexpected faults', () => {
  test('when the database fails under every action, then HTTP 500 with the generic envelope matches InternalError', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    await svc.db.raw('ALTER TABLE users RENAME TO users_moved');
    try {
      for (const action of ['list', 'trash', 'categories', 'profile', 'token', 'tokens', 'admin_users', 'admin_groups']) {
        const res = await read(action).set('X-API-Token', user.token);
        expect([res.status, res.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
        spec.expectResponseMatchesSpec(res, { ...READ, action });
      }
      for (const action of ['upload', 'delete', 'restore', 'purge', 'create_category', 'move', 'rename_category', 'delete_category', 'logout']) {
        const res = await write(action, '&id=1&name=x').set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
        expect([res.status, res.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
        spec.expectResponseMatchesSpec(res, { ...WRITE, action });
      }
      const signIn = await write('login').send({ username: 'someone', password: 'password-123' });
      expect([signIn.status, signIn.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
      spec.expectResponseMatchesSpec(signIn, { ...WRITE, action: 'login' });
    } finally {
      await svc.db.raw('ALTER TABLE users_moved RENAME TO users');
    }
    await svc.db.raw('ALTER TABLE images RENAME TO images_moved');
    try {
      for (const method of ['get', 'post'] as const) {
        const res = await request(svc.app)[method](local(image.links.delete));
        expect([res.status, res.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
        spec.expectResponseMatchesSpec(res, { path: '/api/delete.php', method });
      }
    } finally {
      await svc.db.raw('ALTER TABLE images_moved RENAME TO images');
    }
    await svc.db.raw('ALTER TABLE images RENAME TO images_moved');
    try {
      const res = await request(svc.app).get(local(image.thumb_url));
      expect([res.status, res.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
      spec.expectResponseMatchesSpec(res, { path: '/api/thumb.php', method: 'get' });
    } finally {
      await svc.db.raw('ALTER TABLE images_moved RENAME TO images');
    }
  });
});

describe('GET /api/thumb.php', () => {
  test('when the thumbnail is a WebP or the original itself, then the bytes come with the documented type and headers', async () => {
    const user = await createTestUser(svc.db);
    for (const [file, type] of [
      ['photo.webp', 'image/webp'],
      ['tiny.gif', 'image/gif'],
    ]) {
      const image = await upload(user.token, file);
      const res = await getBinary(local(image.thumb_url));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      spec.expectResponseMatchesSpec(res, { path: '/api/thumb.php', method: 'get' });
    }
  });

  test('when the signature is wrong or the image is binned, then 404 图片不存在 matches ImageNotFound', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const forged = await request(svc.app).get(`/api/thumb.php?id=${image.id}&sig=${'A'.repeat(32)}`);
    expect([forged.status, forged.body]).toEqual([404, { code: 1, msg: '图片不存在' }]);
    spec.expectResponseMatchesSpec(forged, { path: '/api/thumb.php', method: 'get' });
    await write('delete').set('X-API-Token', user.token).send({ id: image.id });
    const binned = await request(svc.app).get(local(image.thumb_url));
    expect([binned.status, binned.body]).toEqual([404, { code: 1, msg: '图片不存在' }]);
    spec.expectResponseMatchesSpec(binned, { path: '/api/thumb.php', method: 'get' });
  });
});

describe('probes', () => {
  test('when /healthz, /readyz and /metrics are asked, then each answer matches its schema', async () => {
    const health = await request(svc.app).get('/healthz');
    expect(health.body).toEqual({ status: 'ok' });
    spec.expectResponseMatchesSpec(health, { path: '/healthz', method: 'get' });
    const ready = await request(svc.app).get('/readyz');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ok', database: 'ok', bucket: svc.config.s3 ? 'ok' : 'not_configured' }]);
    spec.expectResponseMatchesSpec(ready, { path: '/readyz', method: 'get' });
    const metrics = await request(svc.app).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('images_http_requests_total');
    spec.expectResponseMatchesSpec(metrics, { path: '/metrics', method: 'get' });
  });

  test('when the database is gone, then /readyz answers the documented 503', async () => {
    const broken = await openTestService();
    try {
      await broken.db.destroy();
      const res = await request(broken.app).get('/readyz');
      expect([res.status, res.body]).toEqual([503, { status: 'unavailable', database: 'down' }]);
      spec.expectResponseMatchesSpec(res, { path: '/readyz', method: 'get' });
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

describe("requests Node's HTTP parser refuses", () => {
  const served: Array<[string, string, string]> = [
    ['GET', '/api/image.php?action=list', '/api/image.php'],
    ['POST', '/api/image.php?action=upload', '/api/image.php'],
    ['OPTIONS', '/api/image.php', '/api/image.php'],
    ['GET', '/api/thumb.php?id=1&sig=x', '/api/thumb.php'],
    ['GET', '/api/delete.php?id=1&sig=x', '/api/delete.php'],
    ['POST', '/api/delete.php?id=1&sig=x', '/api/delete.php'],
    ['GET', '/healthz', '/healthz'],
    ['GET', '/readyz', '/readyz'],
    ['GET', '/metrics', '/metrics'],
  ];

  test.each(served)('when %s %s has headers over 16 KB, then 431 请求格式错误 matches its 4XX', async (method, url, specPath) => {
    const res = await rawExchange(svc.server, `${method} ${url} HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'f'.repeat(20 * 1024)}\r\n\r\n`);
    expect([res.status, JSON.parse(res.text!)]).toEqual([431, { code: 1, msg: '请求格式错误' }]);
    spec.expectResponseMatchesSpec(res, { path: specPath, method });
  });

  test('when the URL has raw non-ASCII bytes, then 400 请求格式错误 matches the 4XX', async () => {
    const res = await rawExchange(svc.server, 'GET /api/image.php?action=list&keyword=截图 HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect([res.status, JSON.parse(res.text!)]).toEqual([400, { code: 1, msg: '请求格式错误' }]);
    spec.expectResponseMatchesSpec(res, READ);
  });

  test('when a request is not received in time, then 408 请求格式错误 matches the 4XX', async () => {
    const impatient = http.createServer({ headersTimeout: 100, requestTimeout: 200, connectionsCheckingInterval: 20 }, svc.app);
    installClientErrorEnvelope(impatient, pino({ level: 'silent' }));
    impatient.listen(0, '127.0.0.1');
    await once(impatient, 'listening');
    try {
      // The headers never end: the server's own timeout answers.
      const res = await rawExchange(impatient, 'GET /api/image.php?action=list HTTP/1.1\r\nHost: localhost\r\n');
      expect([res.status, JSON.parse(res.text!)]).toEqual([408, { code: 1, msg: '请求格式错误' }]);
      spec.expectResponseMatchesSpec(res, READ);
    } finally {
      impatient.closeAllConnections();
      impatient.close();
    }
  });
});

describe('the compatible APIs (compat/)', () => {
  const LSKY = '/compat/lsky';
  const at = (path: string, method: string): SpecTarget => ({ path, method });

  test('when each Lsky 2.x route answers a success and its refusal, then both match the document', async () => {
    const user = await createTestUser(svc.db, 'lsky', undefined, { password: 'correct horse battery' });
    const bearer = `Bearer ${user.token}`;
    const token = await request(svc.app).post(`${LSKY}/api/v1/tokens`).send({ email: 'lsky', password: 'correct horse battery' });
    expect(token.body.status).toBe(true);
    spec.expectResponseMatchesSpec(token, at(`${LSKY}/api/v1/tokens`, 'post'));

    const uploaded = await request(svc.app).post(`${LSKY}/api/v1/upload`).set('Authorization', bearer).attach('file', fixture('tiny.png'));
    expect(uploaded.body.status).toBe(true);
    spec.expectResponseMatchesSpec(uploaded, at(`${LSKY}/api/v1/upload`, 'post'));
    const refused = await request(svc.app).post(`${LSKY}/api/v1/upload`).set('Authorization', 'Bearer wrong').attach('file', fixture('tiny.png'));
    expect(refused.status).toBe(401);
    spec.expectResponseMatchesSpec(refused, at(`${LSKY}/api/v1/upload`, 'post'));

    for (const path of ['/api/v1/images', '/api/v1/albums', '/api/v1/profile']) {
      const ok = await request(svc.app).get(`${LSKY}${path}`).set('Authorization', bearer);
      expect(ok.body.status).toBe(true);
      spec.expectResponseMatchesSpec(ok, at(`${LSKY}${path}`, 'get'));
      const anonymous = await request(svc.app).get(`${LSKY}${path}`);
      expect(anonymous.status).toBe(401);
      spec.expectResponseMatchesSpec(anonymous, at(`${LSKY}${path}`, 'get'));
    }
    const strategies = await request(svc.app).get(`${LSKY}/api/v1/strategies`);
    spec.expectResponseMatchesSpec(strategies, at(`${LSKY}/api/v1/strategies`, 'get'));

    const deleteTarget = at(`${LSKY}/api/v1/images/{key}`, 'delete');
    const deleted = await request(svc.app).delete(`${LSKY}/api/v1/images/:${uploaded.body.data.key}`).set('Authorization', bearer);
    expect(deleted.body).toEqual({ status: true, message: '删除成功', data: {} });
    spec.expectResponseMatchesSpec(deleted, deleteTarget);
    const anonymousDelete = await request(svc.app).delete(`${LSKY}/api/v1/images/1`);
    expect(anonymousDelete.status).toBe(401);
    spec.expectResponseMatchesSpec(anonymousDelete, deleteTarget);
  });

  test('when Lsky token requests keep failing for one account, then 429 with Lsky’s answer', async () => {
    await createTestUser(svc.db, 'guessed', undefined, { password: 'correct horse battery' });
    let res: request.Response | undefined;
    for (let attempt = 0; attempt < 10 && res?.status !== 429; attempt += 1) {
      res = await request(svc.app).post(`${LSKY}/api/v1/tokens`).send({ email: 'guessed', password: `wrong ${attempt}` });
    }
    expect(res!.status).toBe(429);
    expect(res!.body).toEqual({ status: false, message: Messages.signInThrottled, data: {} });
    spec.expectResponseMatchesSpec(res!, at(`${LSKY}/api/v1/tokens`, 'post'));
  });

  test('when Lsky 1.x, Chevereto and EasyImage answer, then their successes and refusals match the document', async () => {
    const user = await createTestUser(svc.db, 'old', undefined, { password: 'correct horse battery' });
    const v1Token = await request(svc.app).post(`${LSKY}/api/token`).field('email', 'old').field('password', 'correct horse battery');
    spec.expectResponseMatchesSpec(v1Token, at(`${LSKY}/api/token`, 'post'));
    const v1Upload = await request(svc.app).post(`${LSKY}/api/upload`).set('token', user.token).attach('image', fixture('tiny.png'));
    expect(v1Upload.body.code).toBe(200);
    spec.expectResponseMatchesSpec(v1Upload, at(`${LSKY}/api/upload`, 'post'));

    const chevereto = at('/compat/chevereto/api/1/upload', 'post');
    for (const format of ['json', 'txt', 'redirect']) {
      const res = await request(svc.app).post(`/compat/chevereto/api/1/upload?format=${format}`).set('X-API-Key', user.token).attach('source', fixture('tiny.png'));
      expect(res.status).toBe(format === 'redirect' ? 302 : 200);
      spec.expectResponseMatchesSpec(res, chevereto);
    }
    const badKey = await request(svc.app).post('/compat/chevereto/api/1/upload').set('X-API-Key', 'wrong').attach('source', fixture('tiny.png'));
    expect(badKey.status).toBe(400);
    spec.expectResponseMatchesSpec(badKey, chevereto);

    const easy = await request(svc.app).post('/compat/easyimage/api/index.php').field('token', user.token).attach('image', fixture('tiny.png'));
    expect(easy.body.result).toBe('success');
    spec.expectResponseMatchesSpec(easy, at('/compat/easyimage/api/index.php', 'post'));
  });

  const parserRefused: Array<[string, string]> = [
    ['GET', '/compat/lsky/api/v1/strategies'],
    ['POST', '/compat/lsky/api/token'],
    ['POST', '/compat/lsky/api/upload'],
    ['POST', '/compat/easyimage/api/index.php'],
  ];
  test.each(parserRefused)('when %s %s has headers over 16 KB, then 431 请求格式错误 matches its 4XX', async (method, url) => {
    const res = await rawExchange(svc.server, `${method} ${url} HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'f'.repeat(20 * 1024)}\r\n\r\n`);
    expect(res.status).toBe(431);
    spec.expectResponseMatchesSpec(res, { path: url, method });
  });
});

describe('sharing', () => {
  const html = (res: request.Response, status: number, target: SpecTarget) => {
    expect(res.status).toBe(status);
    spec.expectResponseMatchesSpec(res, target);
  };

  test('when the owner creates, lists and revokes a share link and toggles an image page, then each answer matches its action schema', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const categoryId = (await read('categories').set('X-API-Token', user.token)).body.data.list[0].id as number;
    const created = await write('create_share_link').set('X-API-Token', user.token).send({ category_id: categoryId, password: 'album-pass-1', expires_in_hours: 24, max_views: 2 });
    expectEnvelope(created, { ...WRITE, action: 'create_share_link' }, { code: 0, msg: '分享链接已创建' });
    expectEnvelope(await write('create_share_link').set('X-API-Token', user.token).send({ category_id: 999 }), { ...WRITE, action: 'create_share_link' }, { code: 1, msg: '分类不存在' });
    expectEnvelope(await read('share_links').set('X-API-Token', user.token), { ...READ, action: 'share_links' }, { code: 0, msg: '成功' });
    expectEnvelope(await write('revoke_share_link').set('X-API-Token', user.token).send({ id: created.body.data.id }), { ...WRITE, action: 'revoke_share_link' }, { code: 0, msg: '分享链接已撤销' });
    expectEnvelope(await write('revoke_share_link').set('X-API-Token', user.token).send({ id: 999 }), { ...WRITE, action: 'revoke_share_link' }, { code: 1, msg: '分享链接不存在' });
    expectEnvelope(await read('image_page', `&id=${image.id}`).set('X-API-Token', user.token), { ...READ, action: 'image_page' }, { code: 0, msg: '成功', data: { public: false } });
    expectEnvelope(await write('set_image_page').set('X-API-Token', user.token).send({ id: image.id, public: '1' }), { ...WRITE, action: 'set_image_page' }, { code: 0, msg: '图片公开页已开启' });
    expectEnvelope(await write('set_image_page').set('X-API-Token', user.token).send({ id: 999, public: '0' }), { ...WRITE, action: 'set_image_page' }, { code: 1, msg: '图片不存在' });
    expectEnvelope(await write('set_album_pages').set('X-API-Token', user.token).send({ category_id: categoryId, public: '1' }), { ...WRITE, action: 'set_album_pages' }, { code: 0, msg: '相册图片公开页已开启' });
    expectEnvelope(await write('set_album_pages').set('X-API-Token', user.token).send({ category_id: categoryId, public: 0 }), { ...WRITE, action: 'set_album_pages' }, { code: 0, msg: '相册图片公开页已关闭' });
    expectEnvelope(await write('set_album_pages').set('X-API-Token', user.token).send({ category_id: 999, public: 1 }), { ...WRITE, action: 'set_album_pages' }, { code: 1, msg: '分类不存在' });
    expectEnvelope(await write('set_album_pages').set('X-API-Token', user.token).send({ category_id: categoryId }), { ...WRITE, action: 'set_album_pages' }, { code: 1, msg: '参数错误' });
  });

  test('when share pages and image pages are opened, then every status matches the document', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const categoryId = (await read('categories').set('X-API-Token', user.token)).body.data.list[0].id as number;
    const open = (await write('create_share_link').set('X-API-Token', user.token).send({ category_id: categoryId, max_views: 1 })).body.data;
    const locked = (await write('create_share_link').set('X-API-Token', user.token).send({ category_id: categoryId, password: 'album-pass-1' })).body.data;
    const sharePage = { path: '/s/{token}', method: 'get' } as const;
    const sharePassword = { path: '/s/{token}', method: 'post' } as const;
    html(await request(svc.app).get(local(open.url)), 200, sharePage);
    html(await request(svc.app).get(local(open.url)), 410, sharePage);
    html(await request(svc.app).get('/s/missing'), 404, sharePage);
    html(await request(svc.app).post('/s/missing').type('form').send({ password: 'x' }), 404, sharePassword);
    html(await request(svc.app).post(local(open.url)).type('form').send({ password: 'x' }), 410, sharePassword);
    for (let attempt = 0; attempt < 5; attempt += 1) html(await request(svc.app).post(local(locked.url)).type('form').send({ password: `wrong-${attempt}` }), 401, sharePassword);
    html(await request(svc.app).post(local(locked.url)).type('form').send({ password: 'album-pass-1' }), 429, sharePassword);
    await svc.db('sign_in_limits').delete();
    html(await request(svc.app).post(local(locked.url)).type('form').send({ password: 'album-pass-1' }), 303, sharePassword);
    const pageUrl = (await write('set_image_page').set('X-API-Token', user.token).send({ id: image.id, public: '1' })).body.data.page_url as string;
    const imagePage = { path: '/p/{key}', method: 'get' } as const;
    html(await request(svc.app).get(local(pageUrl)), 200, imagePage);
    html(await request(svc.app).get('/p/1-forged'), 404, imagePage);
    await svc.db.raw('ALTER TABLE share_links RENAME TO share_links_moved');
    try {
      html(await request(svc.app).get(local(locked.url)), 500, sharePage);
      html(await request(svc.app).post(local(locked.url)).type('form').send({ password: 'x' }), 500, sharePassword);
    } finally {
      await svc.db.raw('ALTER TABLE share_links_moved RENAME TO share_links');
    }
    await svc.db.raw('ALTER TABLE images RENAME TO images_moved');
    try {
      html(await request(svc.app).get(local(pageUrl)), 500, imagePage);
    } finally {
      await svc.db.raw('ALTER TABLE images_moved RENAME TO images');
    }
  });
});

test('when every test above has run, then every documented operation, status and action was checked against a real answer', () => {
  // /i/… is served by nginx or the embedded front door, never by this app (the e2e tests cover it).
  // /i/ is served by nginx or the front door, not by this app; a full disk needs a filesystem of its
  // own: disk-full.test.ts checks those 507 answers against the spec.
  expect(spec.unchecked().sort()).toEqual(['GET /i/{yyyy}/{mm}/{dd}/{name} 200', 'GET /i/{yyyy}/{mm}/{dd}/{name} 404', 'POST /api/delete.php 507', 'POST /api/image.php 507']);
});
