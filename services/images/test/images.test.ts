import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import pino from 'pino';
import { createImagesRepository } from '../src/images/images-repository';
import {
  createTestUser,
  distinctBytes,
  filesIn,
  storedKeys,
  fixture,
  fixtureBytes,
  imageRows,
  openTestService,
  useTestService,
  publicBytes,
  usedBytes,
} from './support/harness';

const svc = useTestService();

const API = '/api/image.php';
const local = (absoluteUrl: string) => absoluteUrl.replace('http://img.test', '');

async function upload(token: string, filename = 'tiny.png', fixtureName = 'tiny.png', categoryId?: number) {
  const req = request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token);
  if (categoryId !== undefined) req.field('category_id', String(categoryId));
  // Each a different upload (the same content again would be answered with the image already stored).
  const bytes = fixtureName.endsWith('.png') || fixtureName.endsWith('.jpg') ? distinctBytes(fixtureName) : fixtureBytes(fixtureName);
  const res = await req.attach('file', bytes, { filename, contentType: 'application/octet-stream' });
  expect(res.body.code).toBe(0);
  return res.body.data as { id: number; url: string; thumb_url: string; file_size: number; links: Record<string, string> };
}

const list = (token: string, query = '') => request(svc.app).get(`${API}?action=list${query}`).set('X-API-Token', token);

describe('list', () => {
  test('when images exist, then they come newest first with exactly the list fields', async () => {
    const user = await createTestUser(svc.db);
    const first = await upload(user.token, 'a.png');
    const second = await upload(user.token, 'b.png');
    const res = await list(user.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 0,
      msg: '成功',
      data: {
        list: [
          {
            id: second.id,
            original_name: 'b.png',
            url: second.url,
            thumb_url: second.thumb_url,
            file_size: second.file_size,
            create_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
          },
          { id: first.id, original_name: 'a.png', url: first.url, thumb_url: first.thumb_url, file_size: first.file_size, create_time: expect.any(String) },
        ],
        total: 2,
        page: 1,
        limit: 20,
      },
    });
    expect(res.body.data.list[0]).not.toHaveProperty('width');
    expect(res.body.data.list[0]).not.toHaveProperty('height');
    // links=0 (or empty) is the default said aloud; links=1 adds the extension to each item, in the contract's order after it.
    expect((await list(user.token, '&links=0')).body).toEqual(res.body);
    expect((await list(user.token, '&links=')).body).toEqual(res.body);
    const withLinks = await list(user.token, '&links=1');
    expect(withLinks.body.data.list.map((item: { links: unknown }) => item.links)).toEqual([second.links, first.links]);
    expect(Object.keys(withLinks.body.data.list[0])).toEqual(['id', 'original_name', 'url', 'thumb_url', 'file_size', 'create_time', 'links', 'expires_at']);
  });

  test.each(['2', 'true', 'yes', '1&links=1'])('when links is %j, then 参数错误', async (value) => {
    const user = await createTestUser(svc.db);
    await upload(user.token);
    const res = await list(user.token, `&links=${value}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg: '参数错误' });
  });

  test('when create_time is rendered, then it is in Asia/Shanghai as YYYY-MM-DD HH:MM:SS', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    await svc.db('images').where({ id: image.id }).update({ created_at: new Date('2026-01-02T20:04:05Z') });
    const res = await list(user.token);
    expect(res.body.data.list[0].create_time).toBe('2026-01-03 04:04:05');
  });

  test('when paging, then page/limit slice the newest-first order and total stays true', async () => {
    const user = await createTestUser(svc.db);
    const ids: number[] = [];
    for (let i = 0; i < 7; i += 1) ids.push((await upload(user.token, `p${i}.png`)).id);
    const newestFirst = [...ids].reverse();
    const page2 = await list(user.token, '&page=2&limit=3');
    expect(page2.body.data).toMatchObject({ total: 7, page: 2, limit: 3 });
    expect(page2.body.data.list.map((item: { id: number }) => item.id)).toEqual(newestFirst.slice(3, 6));
    const past = await list(user.token, '&page=9&limit=3');
    expect(past.body.data).toEqual({ list: [], total: 7, page: 9, limit: 3 });
    const clamped = await list(user.token, '&limit=500');
    expect(clamped.body.data).toMatchObject({ limit: 100, total: 7 });
    expect(clamped.body.data.list).toHaveLength(7);
    const hugeLimit = await list(user.token, '&limit=100000000000000000000');
    expect(hugeLimit.body.data).toMatchObject({ limit: 100, total: 7 });
    expect(hugeLimit.body.data.list).toHaveLength(7);
  });

  test.each(['&page=0', '&page=-1', '&page=abc', '&page=1.5', '&limit=abc', '&limit=0', '&category_id=abc', '&page=1&page=2', '&page=99999999999', '&keyword=a%00b', '&keyword=%00'])(
    'when the list query has %s, then 参数错误',
    async (query) => {
      const user = await createTestUser(svc.db);
      await upload(user.token);
      const res = await list(user.token, query);
      expect(res.body).toEqual({ code: 1, msg: '参数错误' });
    },
  );

  test("when another user has images, then they never appear in the list", async () => {
    const owner = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    await upload(owner.token);
    await upload(other.token);
    const res = await list(owner.token);
    expect(res.body.data.total).toBe(1);
  });

  test('when category_id is given, then only that category is listed; a foreign or unknown one is 分类不存在', async () => {
    const user = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const cat = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token).send({ name: 'trips' });
    const inCat = await upload(user.token, 'trip.png', 'tiny.png', cat.body.data.id);
    await upload(user.token, 'home.png');
    const res = await list(user.token, `&category_id=${cat.body.data.id}`);
    expect(res.body.data.list.map((item: { id: number }) => item.id)).toEqual([inCat.id]);
    expect(res.body.data.total).toBe(1);
    const foreign = await list(other.token, `&category_id=${cat.body.data.id}`);
    expect(foreign.body).toEqual({ code: 1, msg: '分类不存在' });
    expect((await list(user.token, '&category_id=987654321')).body).toEqual({ code: 1, msg: '分类不存在' });
    const foreignTrash = await request(svc.app).get(`${API}?action=trash&category_id=${cat.body.data.id}`).set('X-API-Token', other.token);
    expect(foreignTrash.body).toEqual({ code: 1, msg: '分类不存在' });
  });

  test('when keyword is given, then it is a case-insensitive substring of original_name with % and _ literal', async () => {
    const user = await createTestUser(svc.db);
    for (const name of ['Holiday-Beach.png', 'holiday_2.png', 'holidayX2.png', '100%done.png', "it's \"quoted\".png", '截图 2026.png']) {
      await upload(user.token, name);
    }
    const names = async (keyword: string) =>
      (await list(user.token, `&keyword=${encodeURIComponent(keyword)}`)).body.data.list.map((item: { original_name: string }) => item.original_name).sort();
    expect(await names('HOLIDAY')).toEqual(['Holiday-Beach.png', 'holidayX2.png', 'holiday_2.png']);
    expect(await names('_')).toEqual(['holiday_2.png']);
    expect(await names('%')).toEqual(['100%done.png']);
    expect(await names('y_2')).toEqual(['holiday_2.png']);
    expect(await names("'")).toEqual(["it's \"quoted\".png"]);
    expect(await names('"quoted"')).toEqual(["it's \"quoted\".png"]);
    expect(await names('截图')).toEqual(['截图 2026.png']);
    expect(await names('\\')).toEqual([]);
    expect(await names('nothing')).toEqual([]);
    const all = await list(user.token, '&keyword=');
    expect(all.body.data.total).toBe(6);
  });

  test('when a keyword search pages through its matches, then each page holds its part, newest first, and a page past the end is empty with the same total', async () => {
    const user = await createTestUser(svc.db);
    for (const name of ['beach-1.png', 'other.png', 'beach-2.png', 'beach-3.png']) await upload(user.token, name);
    const page = async (n: number) => (await list(user.token, `&keyword=BEACH&limit=2&page=${n}`)).body.data;
    const first = await page(1);
    expect(first.total).toBe(3);
    expect(first.list.map((item: { original_name: string }) => item.original_name)).toEqual(['beach-3.png', 'beach-2.png']);
    const second = await page(2);
    expect([second.total, second.list.map((item: { original_name: string }) => item.original_name)]).toEqual([3, ['beach-1.png']]);
    expect(await page(3)).toEqual({ list: [], total: 3, page: 3, limit: 2 });
    expect(await page(99)).toEqual({ list: [], total: 3, page: 99, limit: 2 });
    const none = (await list(user.token, '&keyword=nothing&page=2')).body.data;
    expect([none.list, none.total]).toEqual([[], 0]);
  });
});

describe('delete, trash, restore, purge', () => {
  test.each([
    ['a urlencoded body', (r: request.Test, id: number) => r.type('form').send({ id: String(id) })],
    ['a JSON body', (r: request.Test, id: number) => r.send({ id })],
    ['a multipart body', (r: request.Test, id: number) => r.field('id', String(id))],
    ['the query', (r: request.Test, id: number) => r.query({ id })],
  ])('when delete gets the id in %s, then the image moves to the bin and stops being served', async (_name, withId) => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'photo.webp', 'photo.webp');
    expect(await publicBytes(svc, image.url)).not.toBeNull();

    const res = await withId(request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token), image.id);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, msg: '删除成功' });
    expect(await publicBytes(svc, image.url)).toBeNull();
    expect(await storedKeys(svc, 'public')).toEqual([]);
    expect(await storedKeys(svc, 'bin')).toHaveLength(1);
    expect((await list(user.token)).body.data).toEqual({ list: [], total: 0, page: 1, limit: 20 });
    const thumb = await request(svc.app).get(local(image.thumb_url));
    expect(thumb.status).toBe(404);
    expect(thumb.body).toEqual({ code: 1, msg: '图片不存在' });
    expect(await usedBytes(svc.db, user.id)).toBe(fixtureBytes('photo.webp').length);
    const [row] = await imageRows(svc.db, user.id);
    expect(row).toMatchObject({ status: 'binned' });
  });

  test.each([
    ['id=abc', { id: 'abc' }, '参数错误'],
    ['id=0', { id: '0' }, '参数错误'],
    ['id=-3', { id: '-3' }, '参数错误'],
    ['no id', {}, '参数错误'],
    ['an unknown id', { id: '987654' }, '图片不存在'],
  ])('when delete gets %s, then the envelope says so and nothing changes', async (_name, body, msg) => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const res = await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).type('form').send(body);
    expect(res.body).toEqual({ code: 1, msg });
    expect((await publicBytes(svc, image.url)) !== null).toBe(true);
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'stored' });
  });

  test("when delete names another user's image or one already in the bin, then 图片不存在, the same as a missing one", async () => {
    const owner = await createTestUser(svc.db);
    const intruder = await createTestUser(svc.db);
    const image = await upload(owner.token);
    const foreign = await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', intruder.token).send({ id: image.id });
    expect(foreign.body).toEqual({ code: 1, msg: '图片不存在' });
    expect((await publicBytes(svc, image.url)) !== null).toBe(true);
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'stored' });

    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', owner.token).send({ id: image.id });
    const again = await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', owner.token).send({ id: image.id });
    expect(again.body).toEqual({ code: 1, msg: '图片不存在' });
  });

  test('when delete is called without a token or with GET, then 请先登录 / 不支持的操作 and nothing changes', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const anonymous = await request(svc.app).post(`${API}?action=delete`).send({ id: image.id });
    expect(anonymous.body).toEqual({ code: 1, msg: '请先登录' });
    const viaGet = await request(svc.app).get(`${API}?action=delete&id=${image.id}`).set('X-API-Token', user.token);
    expect(viaGet.body).toEqual({ code: 1, msg: '不支持的操作' });
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'stored' });
  });

  test('when the bin pages through its items, then they come most recently deleted first, and a page past the end is empty with the same total', async () => {
    const user = await createTestUser(svc.db);
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await upload(user.token, `bin${i}.png`)).id);
    // Deleted in the order 2, 0, 1 (deleted_at set apart, so the order does not hang on one clock tick).
    for (const [n, index] of [2, 0, 1].entries()) {
      await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: ids[index] });
      await svc.db('images').where({ id: ids[index] }).update({ deleted_at: new Date(Date.UTC(2026, 0, 1, 0, n)) });
    }
    const trash = async (query: string) => (await request(svc.app).get(`${API}?action=trash${query}`).set('X-API-Token', user.token)).body.data;
    const first = await trash('&limit=2');
    expect([first.total, first.list.map((item: { id: number }) => item.id)]).toEqual([3, [ids[1], ids[0]]]);
    expect((await trash('&limit=2&page=2')).list.map((item: { id: number }) => item.id)).toEqual([ids[2]]);
    expect(await trash('&limit=2&page=3')).toEqual({ list: [], total: 3, page: 3, limit: 2 });
    expect(await trash('&keyword=BIN&limit=2&page=5')).toEqual({ list: [], total: 3, page: 5, limit: 2 });
  });

  test('when a category is filtered past its last page, with or without a keyword, then the list is empty with the category\'s total', async () => {
    const user = await createTestUser(svc.db);
    const cat = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token).send({ name: 'trips' });
    for (const name of ['trip-a.png', 'trip-b.png']) await upload(user.token, name, 'tiny.png', cat.body.data.id);
    await upload(user.token, 'trip-home.png');
    const query = `&category_id=${cat.body.data.id}&limit=1`;
    expect((await list(user.token, `${query}&page=2`)).body.data).toMatchObject({ total: 2, list: [{ original_name: 'trip-a.png' }] });
    expect((await list(user.token, `${query}&page=3`)).body.data).toEqual({ list: [], total: 2, page: 3, limit: 1 });
    expect((await list(user.token, `${query}&keyword=TRIP&page=3`)).body.data).toEqual({ list: [], total: 2, page: 3, limit: 1 });
    expect((await list(user.token, `${query}&keyword=home&page=1`)).body.data).toEqual({ list: [], total: 0, page: 1, limit: 1 });
  });

  test('when an image is in the bin, then trash lists it with its delete and purge times', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'gone.png');
    await upload(user.token, 'kept.png');
    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: image.id });
    const res = await request(svc.app).get(`${API}?action=trash`).set('X-API-Token', user.token);
    expect(res.body).toEqual({
      code: 0,
      msg: '成功',
      data: {
        list: [
          {
            id: image.id,
            original_name: 'gone.png',
            thumb_url: expect.stringMatching(new RegExp(`^http://img\\.test/api/thumb\\.php\\?id=${image.id}&bin=1&sig=[\\w-]{32}$`)),
            file_size: image.file_size,
            create_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
            delete_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
            purge_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
          },
        ],
        total: 1,
        page: 1,
        limit: 20,
      },
    });
  });

  test('when an image is in the bin, then its trash thumb_url serves the thumbnail privately; restored, purged or forged, it answers 404', async () => {
    const user = await createTestUser(svc.db);
    const small = await upload(user.token, 'small.png');
    const photo = await upload(user.token, 'photo.webp', 'photo.webp');
    const thumbPath = (url: string) => url.replace('http://img.test', '');
    const binThumbs = async () =>
      Object.fromEntries(
        ((await request(svc.app).get(`${API}?action=trash`).set('X-API-Token', user.token)).body.data.list as Array<{ id: number; thumb_url: string }>).map((item) => [item.id, item.thumb_url]),
      );
    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ ids: [small.id, photo.id] });
    const thumbs = await binThumbs();

    for (const image of [small, photo]) {
      const served = await request(svc.app).get(thumbPath(thumbs[image.id]!));
      expect([served.status, served.headers['cache-control']]).toEqual([200, 'private, max-age=300']);
      expect(served.headers['content-type']).toMatch(/^image\//);
      // The public thumbnail stays dead while binned, and the bin signature does not open it either.
      expect((await request(svc.app).get(thumbPath(image.thumb_url))).status).toBe(404);
      expect((await request(svc.app).get(thumbPath(image.thumb_url) + '&bin=1')).status).toBe(404);
    }
    const forged = thumbs[photo.id]!.replace(/sig=[\w-]+/, `sig=${'A'.repeat(32)}`);
    expect((await request(svc.app).get(thumbPath(forged))).body).toEqual({ code: 1, msg: '图片不存在' });

    await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: photo.id });
    expect((await request(svc.app).get(thumbPath(thumbs[photo.id]!))).status).toBe(404);
    expect((await request(svc.app).get(thumbPath(photo.thumb_url))).status).toBe(200);
    // Binned again: a new link; the one of the first binning stays dead.
    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: photo.id });
    expect((await request(svc.app).get(thumbPath(thumbs[photo.id]!))).status).toBe(404);
    expect((await request(svc.app).get(thumbPath((await binThumbs())[photo.id]!))).status).toBe(200);

    await request(svc.app).post(`${API}?action=purge`).set('X-API-Token', user.token).send({ id: small.id });
    expect((await request(svc.app).get(thumbPath(thumbs[small.id]!))).status).toBe(404);
  });

  test('when a binned image is restored, then it is listed and served again', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'photo.webp', 'photo.webp');
    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: image.id });
    const res = await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: image.id });
    expect(res.body).toEqual({ code: 0, msg: '恢复成功' });
    expect((await publicBytes(svc, image.url))!.equals(fixtureBytes('photo.webp'))).toBe(true);
    expect(await storedKeys(svc, 'bin')).toEqual([]);
    expect((await list(user.token)).body.data.total).toBe(1);
    expect((await request(svc.app).get(local(image.thumb_url))).status).toBe(200);
    const twice = await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: image.id });
    expect(twice.body).toEqual({ code: 1, msg: '图片不存在' });
  });

  test('when a binned image is purged, then its row and files are gone and its bytes are freed', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'photo.webp', 'photo.webp');
    const kept = await upload(user.token, 'tiny.png');
    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: image.id });
    const res = await request(svc.app).post(`${API}?action=purge`).set('X-API-Token', user.token).send({ id: image.id });
    expect(res.body).toEqual({ code: 0, msg: '已彻底删除' });
    expect((await imageRows(svc.db, user.id)).map((row) => Number(row.id))).toEqual([kept.id]);
    expect(await storedKeys(svc, 'bin')).toEqual([]);
    expect(await storedKeys(svc, 'thumbs')).toHaveLength(1);
    expect(await usedBytes(svc.db, user.id)).toBe(kept.file_size);
  });

  test('when purge names a stored image, then 图片不存在 and nothing changes (only bin items can be purged)', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const res = await request(svc.app).post(`${API}?action=purge`).set('X-API-Token', user.token).send({ id: image.id });
    expect(res.body).toEqual({ code: 1, msg: '图片不存在' });
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
    expect(await usedBytes(svc.db, user.id)).toBe(image.file_size);
  });

  test.each(['restore', 'purge'])(
    "when %s names another user's binned image or a malformed id, then 图片不存在 / 参数错误 and nothing changes",
    async (action) => {
      const owner = await createTestUser(svc.db);
      const intruder = await createTestUser(svc.db);
      const image = await upload(owner.token, 'photo.webp', 'photo.webp');
      await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', owner.token).send({ id: image.id });
      const foreign = await request(svc.app).post(`${API}?action=${action}`).set('X-API-Token', intruder.token).send({ id: image.id });
      expect(foreign.body).toEqual({ code: 1, msg: '图片不存在' });
      for (const id of ['abc', '0', '-1', '1.5', '']) {
        const bad = await request(svc.app).post(`${API}?action=${action}`).set('X-API-Token', owner.token).type('form').send({ id });
        expect(bad.body).toEqual({ code: 1, msg: '参数错误' });
      }
      expect((await imageRows(svc.db)).map((row) => row.status)).toEqual(['binned']);
      expect(await storedKeys(svc, 'bin')).toHaveLength(1);
      expect(await storedKeys(svc, 'public')).toEqual([]);
      expect(await usedBytes(svc.db, owner.id)).toBe(image.file_size);
      expect(await usedBytes(svc.db, intruder.id)).toBe(0);
    },
  );
});

describe('thumbnails', () => {
  test.each([
    ['a wrong sig', (id: number, sig: string) => `id=${id}&sig=${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`],
    ['no sig', (id: number) => `id=${id}`],
    ['another id with this sig', (id: number, sig: string) => `id=${id + 1}&sig=${sig}`],
    ['id=abc', (_id: number, sig: string) => `id=abc&sig=${sig}`],
  ])('when the thumbnail url has %s, then 404', async (_name, query) => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'photo.webp', 'photo.webp');
    const sig = new URL(image.thumb_url).searchParams.get('sig')!;
    const res = await request(svc.app).get(`/api/thumb.php?${query(image.id, sig)}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 1, msg: '图片不存在' });
  });

  test('when the thumbnail is fetched without any token, then it is served with caching and nosniff headers', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token, 'photo.webp', 'photo.webp');
    const res = await request(svc.app).get(local(image.thumb_url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('categories and profile', () => {
  test('when a user is new, then categories lists just the default one', async () => {
    const user = await createTestUser(svc.db);
    await upload(user.token);
    const res = await request(svc.app).get(`${API}?action=categories`).set('X-API-Token', user.token);
    expect(res.body).toEqual({
      code: 0,
      msg: '成功',
      data: { list: [{ id: expect.any(Number), name: '默认分类', is_default: true, image_count: 1, pages_public: false, create_time: expect.any(String) }] },
    });
  });

  test('when create_category is called, then the category is made once; duplicates and bad names are refused', async () => {
    const user = await createTestUser(svc.db);
    const made = await request(svc.app).post(`${API}?action=create_category&name=${encodeURIComponent('旅行')}`).set('X-API-Token', user.token);
    expect(made.body).toEqual({ code: 0, msg: '分类创建成功', data: { id: expect.any(Number), name: '旅行' } });
    const dup = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token).send({ name: ' 旅行 ' });
    expect(dup.body).toEqual({ code: 1, msg: '分类已存在' });
    for (const name of ['', '   ', 'x'.repeat(65), 'a\u0000b', '\ud800x']) {
      const bad = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token).send({ name });
      expect(bad.body).toEqual({ code: 1, msg: '参数错误' });
    }
    const missing = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token);
    expect(missing.body).toEqual({ code: 1, msg: '参数错误' });
    const names = (await request(svc.app).get(`${API}?action=categories`).set('X-API-Token', user.token)).body.data.list.map((c: { name: string }) => c.name);
    expect(names).toEqual(['默认分类', '旅行']);
    expect(Number((await svc.db('categories').where({ user_id: user.id }).count({ n: '*' }).first())!.n)).toBe(2);
  });

  test('when profile is asked, then it shows group, limits and used/quota bytes', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const res = await request(svc.app).get(`${API}?action=profile`).set('X-API-Token', user.token);
    expect(res.body).toEqual({
      code: 0,
      msg: '成功',
      data: {
        username: user.name,
        is_admin: false,
        group: 'default',
        max_file_size: 10 * 1024 * 1024,
        quota_bytes: 1024 * 1024 * 1024,
        used_bytes: image.file_size,
        free_bytes: 1024 * 1024 * 1024 - image.file_size,
        recycle_retention_days: 30,
      },
    });
  });
});

describe('routing', () => {
  test.each(['?action=nope', '', '?action=', '?action=list&action=upload'])('when the action is %s, then 不支持的操作', async (query) => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).get(`${API}${query}`).set('X-API-Token', user.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg: '不支持的操作' });
  });

  test('when list has no token, then 请先登录', async () => {
    const res = await request(svc.app).get(`${API}?action=list`);
    expect(res.body).toEqual({ code: 1, msg: '请先登录' });
  });

  test('when a JSON body is malformed, then 请求格式错误', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).set('Content-Type', 'application/json').send('{"id": ');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg: '请求格式错误' });
  });

  test('when the query token is repeated on delete, then 请先登录 with no fallback to the body token, and the image stays', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const res = await request(svc.app).post(`${API}?action=delete&token=a&token=b`).type('form').send({ id: String(image.id), token: user.token });
    expect(res.body).toEqual({ code: 1, msg: '请先登录' });
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'stored' });
    expect((await publicBytes(svc, image.url)) !== null).toBe(true);
  });

  test.each(['__proto__', 'constructor', 'toString'])('when the action is the Object property %s, then 不支持的操作', async (action) => {
    const user = await createTestUser(svc.db);
    for (const send of [() => request(svc.app).get(`${API}?action=${action}`), () => request(svc.app).post(`${API}?action=${action}`)]) {
      const res = await send().set('X-API-Token', user.token);
      expect(res.body).toEqual({ code: 1, msg: '不支持的操作' });
    }
  });

  test('when a file part under any name is sent to delete, then 参数错误 and the image stays', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const res = await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).field('id', String(image.id)).attach('picture', fixture('tiny.png'));
    expect(res.body).toEqual({ code: 1, msg: '参数错误' });
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'stored' });
  });

  test('when a file is sent to a non-upload action, then 参数错误 and nothing is kept', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    const res = await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).field('id', String(image.id)).attach('file', fixture('tiny.png'));
    expect(res.body).toEqual({ code: 1, msg: '参数错误' });
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect((await imageRows(svc.db))[0]).toMatchObject({ status: 'stored' });
  });
});

describe('housekeeping', () => {
  test('when the service runs, then its timer runs housekeeping by itself (here every 100 ms)', async () => {
    let onSweep: () => void = () => undefined;
    const swept = new Promise<void>((resolve) => (onSweep = resolve));
    const logger = pino({ level: 'info' }, { write: (line: string) => line.includes('removed temp files') && onSweep() });
    const auto = await openTestService({}, { housekeepingIntervalMs: 100, logger });
    try {
      const stale = path.join(auto.storageDir, 'tmp', 'a'.repeat(32));
      fs.writeFileSync(stale, 'partial upload');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
      fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);
      await swept;
      expect(filesIn(auto.storageDir, 'tmp')).toEqual([]);
    } finally {
      await auto.close();
    }
  });

  test('when tmp/ holds a file left by an upload that died over an hour ago, then it is swept; fresh temp files stay', async () => {
    const tmp = path.join(svc.storageDir, 'tmp');
    fs.writeFileSync(path.join(tmp, 'a'.repeat(32)), 'partial upload');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    fs.utimesSync(path.join(tmp, 'a'.repeat(32)), twoHoursAgo, twoHoursAgo);
    fs.writeFileSync(path.join(tmp, 'b'.repeat(32)), 'upload in flight');
    await svc.runHousekeeping();
    expect(filesIn(svc.storageDir, 'tmp')).toEqual(['b'.repeat(32)]);
  });

  test('when an expired bin item is restored and binned again before its purge runs, then the purge leaves it', async () => {
    const user = await createTestUser(svc.db);
    const image = await upload(user.token);
    await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id: image.id });
    // What the purge saw when it picked the id: an age over the cut-off. Since then it was binned anew.
    const cutOff = new Date(Date.now() - 30 * 24 * 3600 * 1000);
    const purging = await createImagesRepository(svc.db).startStep(image.id, { from: 'binned', via: 'purging' }, { deletedBefore: cutOff });
    expect(purging).toBeNull();
    expect((await imageRows(svc.db)).map((row) => row.status)).toEqual(['binned']);
    expect(await usedBytes(svc.db, user.id)).toBe(image.file_size);
  });

  test('when a bin item is older than the retention period, then housekeeping purges it; newer ones stay', async () => {
    const user = await createTestUser(svc.db);
    const old = await upload(user.token);
    const recent = await upload(user.token);
    for (const id of [old.id, recent.id]) await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).send({ id });
    await svc.db('images').where({ id: old.id }).update({ deleted_at: new Date(Date.now() - 31 * 24 * 3600 * 1000) });
    await svc.runHousekeeping();
    expect((await imageRows(svc.db)).map((row) => Number(row.id))).toEqual([recent.id]);
    expect(await usedBytes(svc.db, user.id)).toBe(recent.file_size);
    expect(await storedKeys(svc, 'bin')).toEqual([path.posix.join(...new URL(recent.url).pathname.split('/').slice(2))]);
  });
});
