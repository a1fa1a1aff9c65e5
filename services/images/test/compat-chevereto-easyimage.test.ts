import request from 'supertest';
import { createTestUser, filesIn, fixture, fixtureBytes, imageRows, useTestService, publicBytes } from './support/harness';

/**
 * Chevereto's and EasyImage's upload APIs as their clients call them:
 * - ShareX's Chevereto uploader (ShareX.UploadersLib/ImageUploaders/Chevereto.cs): multipart with the
 *   arguments `key` and `format=json`, then the file as `source`; the link is `image.url_viewer`
 *   (or `image.url` with "direct URL"), the thumbnail `image.thumb.url`; a non-2xx is a failure.
 * - Scripts on Chevereto's documented API v1.1: `X-API-Key` header, `source` as base64 in a form
 *   field, `format=txt` for the bare URL; `error.message` on failure.
 * - EasyImage 2.x's api/index.php: multipart `token` and `image` (its own test form, api/apiTest,
 *   sends `image` first); `result` is `success` with `url`, else `failed` with `code` (202 for a
 *   wrong token) and `message`.
 */
const svc = useTestService();

const CHEVERETO = '/compat/chevereto/api/1/upload';
const EASYIMAGE = '/compat/easyimage/api/index.php';

describe('Chevereto', () => {
  test('when ShareX uploads with key and format fields before the source file, then it reads image.url_viewer, image.url and image.thumb.url', async () => {
    const user = await createTestUser(svc.db);

    const res = await request(svc.app).post(CHEVERETO).field('key', user.token).field('format', 'json').attach('source', fixture('alpha.png'));

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status_code: 200,
      status_txt: 'OK',
      image: {
        url: expect.stringMatching(/^http:\/\/img\.test\/i\/.+\.png$/),
        url_viewer: expect.stringMatching(/^http:\/\/img\.test\/i\//),
        thumb: { url: expect.stringContaining('/api/thumb.php?id=1&sig=') },
        original_filename: 'alpha.png',
        width: 640,
        height: 480,
      },
    });
    expect(await publicBytes(svc, res.body.image.url)).toEqual(fixtureBytes('alpha.png'));
  });

  test('when a script sends X-API-Key and the source as base64 in a urlencoded body with album_id and format=txt, then the answer is the URL alone, in that category', async () => {
    const user = await createTestUser(svc.db);
    const categoryId = Number((await svc.db('categories').insert({ user_id: user.id, name: 'shots' }).returning('id'))[0].id);

    const res = await request(svc.app)
      .post(CHEVERETO)
      .set('X-API-Key', user.token)
      .type('form')
      .send({ source: fixtureBytes('photo.webp').toString('base64'), album_id: String(categoryId), format: 'txt' });

    expect(res.status).toBe(200);
    expect(res.type).toBe('text/plain');
    expect(res.text).toMatch(/^http:\/\/img\.test\/i\/.+\.webp$/);
    expect(Number((await imageRows(svc.db, user.id))[0]!.category_id)).toBe(categoryId);
  });

  test('when format=redirect, then 302 to the image', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(`${CHEVERETO}?key=${user.token}&format=redirect`).attach('source', fixture('tiny.png'));
    expect(res.status).toBe(302);
    expect(res.headers.location).toMatch(/^http:\/\/img\.test\/i\/.+\.png$/);
  });

  test('when the key is wrong, then HTTP 400 with error.message 请先登录 and nothing is stored', async () => {
    const res = await request(svc.app).post(CHEVERETO).set('X-API-Key', 'wrong').attach('source', fixture('alpha.png'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status_code: 400, error: { message: '请先登录', code: 400 }, status_txt: 'Bad Request' });
    expect(await imageRows(svc.db)).toEqual([]);
  });

  test('when the quota is used up or the file is too large, then HTTP 400 with the reason in error.message', async () => {
    const user = await createTestUser(svc.db);
    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 1000 });
    const tooLarge = await request(svc.app).post(CHEVERETO).field('key', user.token).attach('source', fixture('alpha.png'));
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.message).toBe('文件大小超出限制');

    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 10_000_000, quota_bytes: 10 });
    await svc.db('users').where({ id: user.id }).update({ used_bytes: 10 });
    const full = await request(svc.app).post(CHEVERETO).set('X-API-Key', user.token).type('form').send({ source: fixtureBytes('tiny.png').toString('base64') });
    expect(full.status).toBe(400);
    expect(full.body.error.message).toBe('存储空间不足');
  });

  test('when the source is a URL, then 参数错误: nothing is fetched', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(CHEVERETO).set('X-API-Key', user.token).type('form').send({ source: 'https://example.com/a.png' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('参数错误');
  });
});

describe('EasyImage', () => {
  test('when a script posts token then image, then result success with url, srcName, thumb and del', async () => {
    const user = await createTestUser(svc.db);

    const res = await request(svc.app).post(EASYIMAGE).field('token', user.token).attach('image', fixture('photo.webp'));

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: 'success',
      code: 200,
      url: expect.stringMatching(/^http:\/\/img\.test\/i\/.+\.webp$/),
      srcName: 'photo',
      thumb: expect.stringContaining('/api/thumb.php?id=1&sig='),
      del: expect.stringContaining('/api/delete.php?id=1&sig='),
      message: 'success',
    });
  });

  test('when the image comes before the token, as EasyImage’s own test form sends it, then it is stored; with a wrong token after it, 202 and nothing is kept', async () => {
    const user = await createTestUser(svc.db);

    const stored = await request(svc.app).post(EASYIMAGE).attach('image', fixture('alpha.png')).field('token', user.token);
    expect(stored.body).toMatchObject({ result: 'success', code: 200, srcName: 'alpha' });
    expect(await publicBytes(svc, stored.body.url)).toEqual(fixtureBytes('alpha.png'));

    const refused = await request(svc.app).post(EASYIMAGE).attach('image', fixture('photo.webp')).field('token', 'wrong');
    expect(refused.body).toEqual({ result: 'failed', code: 202, message: '请先登录' });
    expect(await imageRows(svc.db)).toHaveLength(1);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
  });

  test('when the token is wrong, then result failed with code 202, and over quota code 403 with 存储空间不足', async () => {
    const user = await createTestUser(svc.db);
    const wrong = await request(svc.app).post(EASYIMAGE).field('token', 'wrong').attach('image', fixture('tiny.png'));
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual({ result: 'failed', code: 202, message: '请先登录' });

    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: 10 });
    await svc.db('users').where({ id: user.id }).update({ used_bytes: 10 });
    const full = await request(svc.app).post(`${EASYIMAGE}?token=${user.token}`).attach('image', fixture('tiny.png'));
    expect(full.body).toEqual({ result: 'failed', code: 403, message: '存储空间不足' });
  });
});
