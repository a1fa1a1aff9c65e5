import request from 'supertest';
import { createTestUser, fixture, useTestService } from './support/harness';
import { tokenCalls } from './support/api-calls';

// Renaming an image (extension): the displayed name only; the URL and the stored file stay.

const API = '/api/image.php';
const svc = useTestService();

const { read, write } = tokenCalls(() => svc);

async function upload(token: string): Promise<{ id: number; url: string }> {
  const res = await write('upload', token).attach('file', fixture('tiny.png'), 'IMG_0001.png');
  expect(res.body.code).toBe(0);
  return res.body.data;
}

const row = async (id: number) => svc.db('images').where({ id }).first('original_name', 'storage_key', 'status');

describe('rename', () => {
  test('when an image is renamed, then the answer carries its new name and links, the URL is unchanged and keyword search finds the new name only', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const before = await row(image.id);

    const res = await write('rename', user.token).send({ id: image.id, name: '  海边 [日落] <2026>.png ' });
    expect(res.body).toEqual({
      code: 0,
      msg: '图片已重命名',
      data: expect.objectContaining({ id: image.id, original_name: '海边 [日落] <2026>.png', url: image.url }),
    });
    expect(res.body.data.links.markdown).toBe(`![海边 \\[日落\\] &#60;2026&#62;.png](${image.url})`);
    expect(res.body.data.links.html).toBe(`<img src="${image.url}" alt="海边 [日落] &#60;2026&#62;.png">`);
    expect(await row(image.id)).toEqual({ ...before, original_name: '海边 [日落] <2026>.png' });

    const found = await read('list', user.token, `&keyword=${encodeURIComponent('日落')}`);
    expect(found.body.data.list.map((item: { id: number }) => item.id)).toEqual([image.id]);
    expect((await read('list', user.token, '&keyword=IMG_0001')).body.data.total).toBe(0);
  });

  test('when a name is empty, too long or holds control characters, then it is refused with the rule it broke and the name stays', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const cases: Array<[unknown, string]> = [
      ['', '图片名称不能为空'],
      ['   ', '图片名称不能为空'],
      [undefined, '图片名称不能为空'],
      ['x'.repeat(256), '图片名称不能超过 255 个字符'],
      ['a\tb.png', '图片名称不能包含控制字符'],
      ['a\nb.png', '图片名称不能包含控制字符'],
      ['evil\u0000.png', '图片名称不能包含控制字符'],
      [42, '参数错误'],
      [['a', 'b'], '参数错误'],
    ];
    for (const [name, msg] of cases) {
      expect((await write('rename', user.token).send({ id: image.id, name })).body).toEqual({ code: 1, msg });
    }
    // 255 characters (not bytes) is the limit: 255 CJK characters are accepted.
    expect((await write('rename', user.token).send({ id: image.id, name: '图'.repeat(255) })).body.code).toBe(0);
    expect((await row(image.id))!.original_name).toBe('图'.repeat(255));
  });

  test("when the image is another user's, binned or unknown, or the id is malformed, then it is refused and nothing changes", async () => {
    const alice = await createTestUser(svc.db);
    const bob = await createTestUser(svc.db);
    const bobs = await upload(bob.token);
    const binned = await upload(alice.token);
    expect((await write('delete', alice.token).send({ id: binned.id })).body.code).toBe(0);

    expect((await write('rename', alice.token).send({ id: bobs.id, name: 'mine.png' })).body).toEqual({ code: 1, msg: '图片不存在' });
    expect((await write('rename', alice.token).send({ id: binned.id, name: 'x.png' })).body).toEqual({ code: 1, msg: '图片不存在' });
    expect((await write('rename', alice.token).send({ id: 999999, name: 'x.png' })).body).toEqual({ code: 1, msg: '图片不存在' });
    expect((await write('rename', alice.token).send({ id: 'abc', name: 'x.png' })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await request(svc.app).post(`${API}?action=rename`).send({ id: bobs.id, name: 'x.png' })).body).toEqual({ code: 1, msg: '请先登录' });
    expect((await request(svc.app).get(`${API}?action=rename&id=${bobs.id}&name=x.png`).set('X-API-Token', bob.token)).body).toEqual({ code: 1, msg: '不支持的操作' });
    expect((await row(bobs.id))!.original_name).toBe('IMG_0001.png');
    expect((await row(binned.id))!.original_name).toBe('IMG_0001.png');
  });

  test('when a client opts into refusal statuses, then a bad name is 400 and a missing image 404, with the same envelope', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const bad = await request(svc.app).post(`${API}?action=rename&http_errors=1`).set('X-API-Token', user.token).send({ id: image.id, name: '' });
    expect([bad.status, bad.body]).toEqual([400, { code: 1, msg: '图片名称不能为空' }]);
    const missing = await request(svc.app).post(`${API}?action=rename&http_errors=1`).set('X-API-Token', user.token).send({ id: 999999, name: 'x' });
    expect([missing.status, missing.body]).toEqual([404, { code: 1, msg: '图片不存在' }]);
  });
});
