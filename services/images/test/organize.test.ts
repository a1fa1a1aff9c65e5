import { createTestUser, distinctBytes, expectConsistentStore, storedKeys, imageRows, useTestService, usedBytes } from './support/harness';
import { tokenCalls } from './support/api-calls';

// Categories (rename, delete), moving images, and delete/restore/purge of many ids at once.

const svc = useTestService();

const { read, write } = tokenCalls(() => svc);

async function upload(token: string, categoryId?: number): Promise<number> {
  const req = write('upload', token);
  if (categoryId !== undefined) req.field('category_id', String(categoryId));
  const res = await req.attach('file', distinctBytes('tiny.png'), 'tiny.png');
  expect(res.body.code).toBe(0);
  return res.body.data.id;
}

async function createCategory(token: string, name: string): Promise<number> {
  const res = await write('create_category', token).send({ name });
  expect(res.body.code).toBe(0);
  return res.body.data.id;
}

const categoryOf = async (id: number) => Number((await svc.db('images').where({ id }).first('category_id')).category_id);
const categories = async (token: string) => (await read('categories', token)).body.data.list as Array<{ id: number; name: string; image_count: number; is_default: boolean }>;

describe('categories', () => {
  test('when a category is renamed, then its new name is listed; a taken name, a foreign id and bad names are refused and change nothing', async () => {
    const alice = await createTestUser(svc.db);
    const bob = await createTestUser(svc.db);
    const trips = await createCategory(alice.token, '旅行');
    await createCategory(alice.token, '截图');
    const bobs = await createCategory(bob.token, 'bob');

    expect((await write('rename_category', alice.token).send({ id: trips, name: ' 2026 旅行 ' })).body).toEqual({ code: 0, msg: '分类已重命名', data: { id: trips, name: '2026 旅行' } });
    expect((await write('rename_category', alice.token).send({ id: trips, name: '截图' })).body).toEqual({ code: 1, msg: '分类已存在' });
    expect((await write('rename_category', alice.token).send({ id: bobs, name: 'mine now' })).body).toEqual({ code: 1, msg: '分类不存在' });
    for (const name of ['', '   ', 'x'.repeat(65), 'a\u0007b', '\u202Eevil\u0000']) {
      expect((await write('rename_category', alice.token).send({ id: trips, name })).body).toEqual({ code: 1, msg: '参数错误' });
    }
    expect((await write('rename_category', alice.token).send({ id: 'abc', name: 'x' })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await categories(alice.token)).map((c) => c.name)).toEqual(['默认分类', '2026 旅行', '截图']);
    expect((await categories(bob.token)).map((c) => c.name)).toEqual(['默认分类', 'bob']);
    // A right-to-left override is text like any other: stored and answered as sent.
    expect((await write('rename_category', alice.token).send({ id: trips, name: '\u202Egpj.exe' })).body.data.name).toBe('\u202Egpj.exe');
  });

  test('when a category is deleted, then its images (stored and binned) move to the default category in the same transaction', async () => {
    const user = await createTestUser(svc.db);
    const trips = await createCategory(user.token, '旅行');
    const stored = await upload(user.token, trips);
    const binned = await upload(user.token, trips);
    expect((await write('delete', user.token).send({ id: binned })).body.code).toBe(0);
    const defaultId = (await categories(user.token)).find((c) => c.is_default)!.id;

    expect((await write('delete_category', user.token).send({ id: trips })).body).toEqual({ code: 0, msg: '分类已删除', data: { id: trips, moved: 2 } });
    expect(await categoryOf(stored)).toBe(defaultId);
    expect(await categoryOf(binned)).toBe(defaultId);
    expect(await categories(user.token)).toEqual([expect.objectContaining({ id: defaultId, image_count: 1 })]);
    expect((await read('list', user.token, `&category_id=${trips}`)).body).toEqual({ code: 1, msg: '分类不存在' });
    await expectConsistentStore(svc);
  });

  test('when the default category, a foreign one or an unknown one is deleted, then it is refused and nothing moves', async () => {
    const alice = await createTestUser(svc.db);
    const bob = await createTestUser(svc.db);
    const bobs = await createCategory(bob.token, 'bob');
    const image = await upload(bob.token, bobs);
    const defaultId = (await categories(alice.token))[0]!.id;
    expect((await write('delete_category', alice.token).send({ id: defaultId })).body).toEqual({ code: 1, msg: '默认分类不能删除' });
    expect((await write('delete_category', alice.token).send({ id: bobs })).body).toEqual({ code: 1, msg: '分类不存在' });
    expect((await write('delete_category', alice.token).send({ id: 999 })).body).toEqual({ code: 1, msg: '分类不存在' });
    expect(await categoryOf(image)).toBe(bobs);
    expect(await categories(bob.token)).toHaveLength(2);
  });
});

describe('move', () => {
  test('when images are moved, then each of the user\'s (stored or binned) lands in the category; foreign, unknown and repeated ids are reported per id', async () => {
    const alice = await createTestUser(svc.db);
    const bob = await createTestUser(svc.db);
    const target = await createCategory(alice.token, '精选');
    const a1 = await upload(alice.token);
    const a2 = await upload(alice.token);
    await write('delete', alice.token).send({ id: a2 });
    const b1 = await upload(bob.token);

    const res = await write('move', alice.token).send({ ids: [a1, a2, b1, 999, a1], category_id: target });
    expect(res.body).toEqual({
      code: 0,
      msg: '成功',
      data: {
        results: [
          { id: a1, ok: true, msg: '已移动' },
          { id: a2, ok: true, msg: '已移动' },
          { id: b1, ok: false, msg: '图片不存在' },
          { id: 999, ok: false, msg: '图片不存在' },
          { id: a1, ok: false, msg: '重复的图片编号' },
        ],
        succeeded: 2,
        failed: 3,
      },
    });
    expect([await categoryOf(a1), await categoryOf(a2)]).toEqual([target, target]);
    expect(await categoryOf(b1)).not.toBe(target);
  });

  test("when the target is another user's category, unknown or malformed, then the whole move is refused and nothing moves", async () => {
    const alice = await createTestUser(svc.db);
    const bob = await createTestUser(svc.db);
    const bobs = await createCategory(bob.token, 'bob');
    const image = await upload(alice.token);
    const before = await categoryOf(image);
    expect((await write('move', alice.token).send({ ids: [image], category_id: bobs })).body).toEqual({ code: 1, msg: '分类不存在' });
    expect((await write('move', alice.token).send({ ids: [image], category_id: 999 })).body).toEqual({ code: 1, msg: '分类不存在' });
    expect((await write('move', alice.token).send({ ids: [image] })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await write('move', alice.token).send({ ids: [], category_id: bobs })).body).toEqual({ code: 1, msg: '参数错误' });
    expect(await categoryOf(image)).toBe(before);
  });
});

describe('many ids at once', () => {
  test('when ids are deleted, restored and purged in bulk, then the answer says what happened to each, and files, bin and used bytes follow exactly', async () => {
    const alice = await createTestUser(svc.db);
    const bob = await createTestUser(svc.db);
    const ids = [await upload(alice.token), await upload(alice.token), await upload(alice.token)];
    const foreign = await upload(bob.token);
    const size = Number((await imageRows(svc.db, alice.id))[0]!.file_size);

    const deleted = await write('delete', alice.token).type('form').send(`ids=${[ids[0], ids[1], foreign, ids[0]].join(',')}`);
    expect(deleted.body).toEqual({
      code: 0,
      msg: '成功',
      data: {
        results: [
          { id: ids[0], ok: true, msg: '删除成功' },
          { id: ids[1], ok: true, msg: '删除成功' },
          { id: foreign, ok: false, msg: '图片不存在' },
          { id: ids[0], ok: false, msg: '重复的图片编号' },
        ],
        succeeded: 2,
        failed: 2,
      },
    });
    expect(await storedKeys(svc, 'bin')).toHaveLength(2);
    expect((await read('trash', alice.token)).body.data.total).toBe(2);
    expect(await usedBytes(svc.db, alice.id)).toBe(3 * size);

    // The parameter repeated works as well as a list.
    const restored = await write('restore', alice.token).type('form').send(`ids=${ids[0]}&ids=${ids[2]}`);
    expect(restored.body.data.results).toEqual([
      { id: ids[0], ok: true, msg: '恢复成功' },
      { id: ids[2], ok: false, msg: '图片不存在' },
    ]);

    await write('delete', alice.token).send({ ids: [ids[0], ids[2]] });
    const purged = await write('purge', alice.token).send({ ids: [...ids, foreign] });
    expect(purged.body.data).toMatchObject({ succeeded: 3, failed: 1 });
    expect(await usedBytes(svc.db, alice.id)).toBe(0);
    expect(await imageRows(svc.db, alice.id)).toEqual([]);
    expect((await imageRows(svc.db, bob.id)).map((row) => Number(row.id))).toEqual([foreign]);
    await expectConsistentStore(svc);
  });

  test('when a bulk request names 1,001 or 10,000 ids, a malformed id, or both id and ids, then it is refused whole and nothing changes', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const many = (count: number) => Array.from({ length: count }, (_, i) => image + i);
    expect((await write('delete', user.token).send({ ids: many(1001) })).body).toEqual({ code: 1, msg: '一次最多处理 1000 张图片' });
    expect((await write('delete', user.token).send({ ids: many(10_000) })).body).toEqual({ code: 1, msg: '一次最多处理 1000 张图片' });
    expect((await write('delete', user.token).type('form').send(`ids=${image},abc`)).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await write('delete', user.token).send({ ids: [image, -1] })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await write('delete', user.token).send({ ids: [image], id: image })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await write('delete', user.token).send({ ids: '' })).body).toEqual({ code: 1, msg: '参数错误' });
    expect((await imageRows(svc.db, user.id))[0]).toMatchObject({ status: 'stored' });
    expect(await storedKeys(svc, 'bin')).toEqual([]);
  });

  test('when 1,000 ids are deleted in one request, then all of them are in the bin and the answer lists 1,000 results', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    // One real image and 999 ids that are not the user's: each is answered, none is touched.
    const ids = [image, ...Array.from({ length: 999 }, (_, i) => image + 1000 + i)];
    const res = await write('delete', user.token).send({ ids });
    expect(res.body.data.results).toHaveLength(1000);
    expect(res.body.data).toMatchObject({ succeeded: 1, failed: 999 });
    expect(await storedKeys(svc, 'bin')).toHaveLength(1);
  });
});
