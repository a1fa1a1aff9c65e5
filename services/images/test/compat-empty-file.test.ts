import request from 'supertest';
import { createTestUser, filesIn, imageRows, useTestService } from './support/harness';

// A 0-byte file sent to each compatibility route: the main upload route's "empty file" message, in
// that route's own envelope and status, and nothing stored or charged. No file at all keeps 请选择要上传的文件.

const EMPTY = '文件为空（0 字节），请选择有内容的图片';
const NO_FILE = '请选择要上传的文件';

const svc = useTestService();

const nothingStored = async (userId: number) => {
  expect(await imageRows(svc.db)).toEqual([]);
  expect(filesIn(svc.storageDir, 'public')).toEqual([]);
  expect(Number((await svc.db('users').where({ id: userId }).first('used_bytes')).used_bytes)).toBe(0);
};

test('when the main upload route gets a 0-byte file, then 文件为空 (the message the compatibility routes now share)', async () => {
  const user = await createTestUser(svc.db);
  const res = await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', Buffer.alloc(0), 'empty.png');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ code: 1, msg: EMPTY });
  await nothingStored(user.id);
});

describe('Chevereto (ShareX, scripts)', () => {
  test('when the source file is 0 bytes, then HTTP 400 with error.message 文件为空', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post('/compat/chevereto/api/1/upload').field('key', user.token).field('format', 'json').attach('source', Buffer.alloc(0), 'empty.png');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status_code: 400, error: { message: EMPTY, code: 400 }, status_txt: 'Bad Request' });
    await nothingStored(user.id);
  });

  test('when there is no source at all, then 请选择要上传的文件 as before', async () => {
    const user = await createTestUser(svc.db);
    const none = await request(svc.app).post('/compat/chevereto/api/1/upload').set('X-API-Key', user.token).type('form').send({ format: 'json' });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ status_code: 400, error: { message: NO_FILE, code: 400 }, status_txt: 'Bad Request' });
    await nothingStored(user.id);
  });
});

describe('EasyImage', () => {
  test('when the image is 0 bytes, then result failed, code 403, message 文件为空', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post('/compat/easyimage/api/index.php').field('token', user.token).attach('image', Buffer.alloc(0), 'empty.jpg');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: 'failed', code: 403, message: EMPTY });
    await nothingStored(user.id);
  });
});

describe('Lsky Pro', () => {
  test('when 2.x (PicGo, PicList) sends a 0-byte file, then status false with message 文件为空', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post('/compat/lsky/api/v1/upload').set('Authorization', `Bearer ${user.token}`).attach('file', Buffer.alloc(0), 'empty.png');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: false, message: EMPTY, data: {} });
    await nothingStored(user.id);
  });

  test('when 1.x (uPic) sends a 0-byte image, then code 500 with msg and message 文件为空', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post('/compat/lsky/api/upload').set('token', user.token).attach('image', Buffer.alloc(0), 'empty.png');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 500, msg: EMPTY, message: EMPTY, data: {}, time: expect.any(Number) });
    await nothingStored(user.id);
  });
});
