import request from 'supertest';
import { createTestUser, fixture, fixtureBytes, imageRows, useTestService, publicBytes } from './support/harness';

/**
 * Lsky Pro's API as its clients call it: each request is the one the client builds (headers, fields,
 * their order, the path), read from its public source, and each answer is read the way that client
 * reads it.
 * - picgo-plugin-lankong (hellodk34, src/index.ts): V2 posts `file`, `ssl`, `strategy_id` with the
 *   token as the user typed it in `Authorization`; success is `status === true`, the link
 *   `data.links.url`, the key `data.key`; it deletes `DELETE {server}/api/v1/images/:{key}` (a colon
 *   before the key) and shows `message` on failure. V1 posts `image` + `ssl` with a `token` header and
 *   checks `code === 200`, `data.url`.
 * - PicList (Kuingsmile/PicList-Core src/plugins/uploader/lsky.ts, PicList src/renderer/apis/lskyplist.ts):
 *   V2 adds `Accept: application/json`, `album_id`, `permission`; deletes `{host}/api/v1/images/{hash}`
 *   and counts it done when the status is 200 and `status === true`.
 * - uPic's Lsky Pro host (gee1k/uPic v0.17, LskyProUploader.swift): POST `{domain}/api/token` with
 *   multipart `email` and `password`, reads `data.token` when `code == 200`; uploads `image` with a
 *   `token` header to `{domain}/api/upload`, reads `data.url`, else `msg`; any non-2xx is a failure.
 */
const svc = useTestService();

const SERVER = '/compat/lsky';
const PASSWORD = 'correct horse battery';

/** What picgo-plugin-lankong's handle() and PicList's do with an answer body (a string they JSON.parse). */
function readV2Upload(text: string): { imgUrl: string; key: string } {
  const body = JSON.parse(text) as { status: boolean; message: string; data: { links: { url: string }; key: string } };
  if (body.status !== true) throw new Error(body.message);
  return { imgUrl: body.data.links.url, key: body.data.key };
}

function picgoV2Upload(token: string, file: string, extra: Record<string, string> = {}) {
  let req = request(svc.app)
    .post(`${SERVER}/api/v1/upload`)
    .set('User-Agent', 'PicGo')
    .set('Connection', 'keep-alive')
    .set('Authorization', token)
    .attach('file', fixture(file))
    .field('ssl', 'true');
  for (const [name, value] of Object.entries(extra)) req = req.field(name, value);
  return req;
}

describe('picgo-plugin-lankong V2', () => {
  test('when it uploads with the token typed as "Bearer <token>", then it reads data.links.url and data.key, the file is stored, and its sync delete bins the image', async () => {
    const user = await createTestUser(svc.db);

    const res = await picgoV2Upload(`Bearer ${user.token}`, 'alpha.png', { strategy_id: '1' });

    expect(res.status).toBe(200);
    const { imgUrl, key } = readV2Upload(res.text);
    expect(imgUrl).toMatch(/^http:\/\/img\.test\/i\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.png$/);
    expect(await publicBytes(svc, imgUrl)).toEqual(fixtureBytes('alpha.png'));
    expect(JSON.parse(res.text).data).toMatchObject({
      key: '1',
      origin_name: 'alpha.png',
      mimetype: 'image/png',
      extension: 'png',
      links: { url: imgUrl, markdown: `![alpha.png](${imgUrl})`, bbcode: `[img]${imgUrl}[/img]`, thumbnail_url: expect.stringContaining('/api/thumb.php?id=1&sig=') },
    });

    const deleted = await request(svc.app)
      .delete(`${SERVER}/api/v1/images/:${key}`)
      .set('Accept', 'application/json')
      .set('User-Agent', 'PicGo')
      .set('Authorization', `Bearer ${user.token}`);

    expect(JSON.parse(deleted.text)).toEqual({ status: true, message: '删除成功', data: {} });
    expect((await imageRows(svc.db, user.id)).map((row) => row.status)).toEqual(['binned']);
  });

  test('when the token is the bare value (no "Bearer"), then the upload is accepted too', async () => {
    const user = await createTestUser(svc.db);
    const res = await picgoV2Upload(user.token, 'tiny.png');
    expect(readV2Upload(res.text).key).toBe('1');
  });

  test('when the token is wrong, then 401 with status false and 请先登录, and nothing is stored', async () => {
    await createTestUser(svc.db);
    const res = await picgoV2Upload('Bearer not-a-token', 'alpha.png');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: false, message: '请先登录', data: {} });
    expect(await imageRows(svc.db)).toEqual([]);
  });

  test('when the quota is used up, then HTTP 200 with status false and 存储空间不足, which the plugin throws as its error', async () => {
    const user = await createTestUser(svc.db);
    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: 10 });
    await svc.db('users').where({ id: user.id }).update({ used_bytes: 10 });

    const res = await picgoV2Upload(`Bearer ${user.token}`, 'alpha.png');

    expect(res.status).toBe(200);
    expect(() => readV2Upload(res.text)).toThrow('存储空间不足');
    expect(await imageRows(svc.db)).toEqual([]);
  });

  test('when the file is over the group limit, then status false and 文件大小超出限制', async () => {
    const user = await createTestUser(svc.db);
    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 1000 });
    const res = await picgoV2Upload(`Bearer ${user.token}`, 'alpha.png');
    expect(() => readV2Upload(res.text)).toThrow('文件大小超出限制');
  });
});

describe('PicList Lsky uploader V2', () => {
  test('when it uploads with album_id and permission, then the image goes to that category, and its delete (no colon) counts as done', async () => {
    const user = await createTestUser(svc.db);
    const categoryId = Number((await svc.db('categories').insert({ user_id: user.id, name: '旅行' }).returning('id'))[0].id);
    const token = `Bearer ${user.token}`;

    const res = await request(svc.app)
      .post(`${SERVER}/api/v1/upload`)
      .set('User-Agent', 'PicList')
      .set('Accept', 'application/json')
      .set('Authorization', token)
      .attach('file', fixture('photo.webp'))
      .field('ssl', 'true')
      .field('strategy_id', '2')
      .field('album_id', String(categoryId))
      .field('permission', '0');

    const { key } = readV2Upload(res.text);
    expect(Number((await imageRows(svc.db, user.id))[0]!.category_id)).toBe(categoryId);

    const albums = await request(svc.app).get(`${SERVER}/api/v1/albums`).set('Accept', 'application/json').set('Authorization', token);
    expect(albums.body.data.data).toEqual(expect.arrayContaining([{ id: categoryId, name: '旅行', intro: '', image_num: 1 }]));

    const deleted = await request(svc.app).delete(`${SERVER}/api/v1/images/${key}`).set('Accept', 'application/json').set('Authorization', token);
    expect(deleted.status === 200 && deleted.body.status === true).toBe(true);
  });

  test('when it deletes a key that is not the user’s, then status false and 图片不存在', async () => {
    const owner = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const { key } = readV2Upload((await picgoV2Upload(owner.token, 'tiny.png')).text);
    const res = await request(svc.app).delete(`${SERVER}/api/v1/images/${key}`).set('Authorization', `Bearer ${other.token}`);
    expect(res.body).toEqual({ status: false, message: '图片不存在', data: {} });
  });
});

describe('Lsky 2.x account routes', () => {
  test('when a token is asked with the account name as email, then it is a named token that uploads, lists and reads the profile', async () => {
    const user = await createTestUser(svc.db, 'alice', undefined, { password: PASSWORD });

    const issued = await request(svc.app).post(`${SERVER}/api/v1/tokens`).set('Accept', 'application/json').send({ email: 'alice', password: PASSWORD });

    expect(issued.body).toEqual({ status: true, message: 'success', data: { token: expect.any(String) } });
    const token = `Bearer ${issued.body.data.token}`;
    expect(await svc.db('credentials').where({ user_id: user.id, kind: 'named' }).pluck('name')).toEqual([expect.stringMatching(/^Lsky Pro \d{4}-\d{2}-\d{2} \d{2}:\d{2}$/)]);

    readV2Upload((await picgoV2Upload(token, 'tiny.png')).text);
    const images = await request(svc.app).get(`${SERVER}/api/v1/images`).set('Authorization', token);
    expect(images.body.status).toBe(true);
    expect(images.body.data).toMatchObject({ current_page: 1, per_page: 40, total: 1, last_page: 1, next_page_url: null });
    expect(images.body.data.data[0]).toMatchObject({ key: '1', origin_name: 'tiny.png', links: { url: expect.any(String) }, date: expect.any(String) });

    const profile = await request(svc.app).get(`${SERVER}/api/v1/profile`).set('Authorization', token);
    expect(profile.body.data).toMatchObject({ name: 'alice', capacity: 1024 * 1024, image_num: 1, album_num: 1 });

    const strategies = await request(svc.app).get(`${SERVER}/api/v1/strategies`);
    expect(strategies.body).toEqual({ status: true, message: 'success', data: { strategies: [{ id: 1, name: expect.any(String) }] } });
  });

  test('when the password is wrong, then status false with 用户名或密码错误 and no token is made', async () => {
    const user = await createTestUser(svc.db, 'bob', undefined, { password: PASSWORD });
    const res = await request(svc.app).post(`${SERVER}/api/v1/tokens`).type('form').send({ email: 'bob', password: 'wrong password' });
    expect(res.body).toEqual({ status: false, message: '用户名或密码错误', data: {} });
    expect(await svc.db('credentials').where({ user_id: user.id, kind: 'named' })).toEqual([]);
  });

  test('when the list is asked without a token, then 401 请先登录', async () => {
    const res = await request(svc.app).get(`${SERVER}/api/v1/images`).set('Accept', 'application/json');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: false, message: '请先登录', data: {} });
  });
});

describe('Lsky 1.x (uPic, picgo-plugin-lankong V1)', () => {
  test('when uPic asks a token with multipart email and password and uploads `image` with a token header, then code 200 and data.url', async () => {
    await createTestUser(svc.db, 'carol', undefined, { password: PASSWORD });

    const issued = await request(svc.app).post(`${SERVER}/api/token`).set('Referer', `${SERVER}/api/token`).field('email', 'carol').field('password', PASSWORD);
    expect(issued.status).toBe(200);
    expect(issued.body.code).toBe(200);
    const token = issued.body.data.token as string;

    const res = await request(svc.app).post(`${SERVER}/api/upload`).set('token', token).attach('image', fixture('photo.webp'), { filename: 'shot.webp', contentType: 'image/webp' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 200, msg: '上传成功', data: { name: 'shot.webp', url: expect.stringMatching(/^http:\/\/img\.test\/i\/.+\.webp$/) } });
    expect(await publicBytes(svc, res.body.data.url)).not.toBeNull();
    // A token per upload would pile up: 1.x gets a session, which expires.
    expect(await svc.db('credentials').where({ kind: 'named' })).toEqual([]);
  });

  test('when the token header is wrong, then HTTP 200 (uPic reads any non-2xx as a transport error) with code 401 and msg 请先登录', async () => {
    const res = await request(svc.app).post(`${SERVER}/api/upload`).set('token', 'wrong').attach('image', fixture('tiny.png')).field('ssl', 'true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 401, msg: '请先登录', message: '请先登录' });
  });
});
