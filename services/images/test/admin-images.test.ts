import request from 'supertest';
import { createTestUser, filesIn, fixtureBytes, imageRows, useTestService, storedKeys, usedBytes } from './support/harness';
import { tokenCalls } from './support/api-calls';

// What an admin does with every user's images: find them by user, type, size and upload day, bin or
// purge them in bulk (as each owner's own delete and purge), and ban a user's uploads.

const API = '/api/image.php';
const svc = useTestService();

const { read, write, sessionOf } = tokenCalls(() => svc);

async function upload(token: string, fixtureName: string, filename = fixtureName) {
  const res = await write('upload', token).attach('file', fixtureBytes(fixtureName), { filename, contentType: 'application/octet-stream' });
  expect(res.body).toMatchObject({ code: 0, msg: '上传成功' });
  return res.body.data as { id: number; url: string; file_size: number };
}

const idsOf = (res: request.Response) => (res.body.data.list as Array<{ id: number }>).map((item) => item.id);

test('when a non-admin, or an admin with a token rather than a session, calls an image or settings admin action, then it is refused with the envelope and nothing changes', async () => {
  const plain = await sessionOf('plain');
  const admin = await sessionOf('root', { isAdmin: true });
  const image = await upload(plain.token, 'tiny.png');
  const calls = [
    ['admin_images', () => read('admin_images', plain.session)],
    ['admin_bin_images', () => write('admin_bin_images', plain.session).send({ ids: [image.id] })],
    ['admin_purge_images', () => write('admin_purge_images', plain.session).send({ ids: [image.id] })],
    ['admin_ban_uploads', () => write('admin_ban_uploads', plain.session).send({ id: plain.id, banned: true })],
    ['admin_settings', () => read('admin_settings', plain.session)],
    ['admin_update_settings', () => write('admin_update_settings', plain.session).send({ registration_enabled: true })],
  ] as const;
  for (const [action, send] of calls) {
    const res = await send();
    expect([action, res.status, res.body]).toEqual([action, 200, { code: 1, msg: '没有权限' }]);
  }
  expect((await write('admin_purge_images', admin.token).send({ ids: [image.id] })).body).toEqual({ code: 1, msg: '请使用账号密码登录后再操作' });
  expect((await imageRows(svc.db)).map((row) => [Number(row.id), row.status])).toEqual([[image.id, 'stored']]);
  expect(await svc.db('users').whereNotNull('uploads_banned_at')).toEqual([]);
  expect(await svc.db('site_settings')).toEqual([]);
});

test('when an admin lists every image, then user, type, size, upload day and status filter it, paged, with each image owner and details', async () => {
  const admin = await sessionOf('root', { isAdmin: true });
  const bob = await createTestUser(svc.db, 'bob');
  const carol = await createTestUser(svc.db, 'carol');
  const png = await upload(bob.token, 'tiny.png', 'a.png');
  const webp = await upload(bob.token, 'photo.webp');
  const gif = await upload(carol.token, 'tiny.gif');
  // carol's gif was uploaded "yesterday" in the service's zone (Asia/Shanghai).
  await svc.db('images').where({ id: gif.id }).update({ created_at: new Date('2026-03-01T15:30:00Z') });

  const all = await read('admin_images', admin.session, '&limit=2');
  expect(all.body).toEqual({
    code: 0,
    msg: '成功',
    data: {
      list: [
        {
          id: gif.id,
          original_name: 'tiny.gif',
          user_id: carol.id,
          username: 'carol',
          format: 'gif',
          mime_type: 'image/gif',
          file_size: gif.file_size,
          width: expect.any(Number),
          height: expect.any(Number),
          status: 'stored',
          url: gif.url,
          thumb_url: expect.stringMatching(new RegExp(`^http://img\\.test/api/thumb\\.php\\?id=${gif.id}&sig=`)),
          create_time: '2026-03-01 23:30:00',
        },
        expect.objectContaining({ id: webp.id, username: 'bob', format: 'webp', mime_type: 'image/webp' }),
      ],
      total: 3,
      page: 1,
      limit: 2,
    },
  });
  expect(idsOf(await read('admin_images', admin.session, '&limit=2&page=2'))).toEqual([png.id]);
  expect(idsOf(await read('admin_images', admin.session, '&username=BOB'))).toEqual([webp.id, png.id]);
  expect(idsOf(await read('admin_images', admin.session, '&type=image/png'))).toEqual([png.id]);
  expect(idsOf(await read('admin_images', admin.session, '&type=WEBP'))).toEqual([webp.id]);
  const sizes = [png, webp, gif].map((image) => image.file_size).sort((a, b) => a - b);
  expect((await read('admin_images', admin.session, `&min_size=${sizes[1]}&max_size=${sizes[1]}`)).body.data.total).toBe(1);
  expect((await read('admin_images', admin.session, `&min_size=${sizes[2]! + 1}`)).body.data).toMatchObject({ list: [], total: 0 });
  // Upload days are the service's calendar days, both ends included.
  expect(idsOf(await read('admin_images', admin.session, '&from=2026-03-01&to=2026-03-01'))).toEqual([gif.id]);
  expect(idsOf(await read('admin_images', admin.session, '&to=2026-02-28'))).toEqual([]);
  expect(idsOf(await read('admin_images', admin.session, '&from=2026-03-02'))).toEqual([webp.id, png.id]);

  await write('delete', bob.token).send({ id: png.id });
  const binned = await read('admin_images', admin.session, '&status=binned');
  expect(binned.body.data).toMatchObject({ total: 1, list: [{ id: png.id, status: 'binned', url: null, thumb_url: expect.stringContaining('&bin=1&sig=') }] });
  expect(idsOf(await read('admin_images', admin.session, '&status=stored'))).toEqual([gif.id, webp.id]);

  for (const [query, msg] of [
    ['&username=nobody', '用户不存在'],
    ['&type=svg', '不支持的文件类型'],
    ['&status=purging', '参数错误'],
    ['&from=2026-02-30', '参数错误'],
    ['&to=yesterday', '参数错误'],
    ['&min_size=-1', '参数错误'],
  ] as const) {
    expect([query, (await read('admin_images', admin.session, query)).body]).toEqual([query, { code: 1, msg }]);
  }
});

test('when an admin bins then purges images of two users in bulk, then rows, files and each owner used bytes end as the owners own delete and purge leave them', async () => {
  const admin = await sessionOf('root', { isAdmin: true });
  const bob = await createTestUser(svc.db, 'bob');
  const carol = await createTestUser(svc.db, 'carol');
  const bobPng = await upload(bob.token, 'tiny.png');
  const bobWebp = await upload(bob.token, 'photo.webp');
  const carolGif = await upload(carol.token, 'tiny.gif');
  const carolKept = await upload(carol.token, 'tiny.png', 'kept.png');
  const bobBefore = await usedBytes(svc.db, bob.id);
  const carolBefore = await usedBytes(svc.db, carol.id);
  expect(bobBefore).toBe(bobPng.file_size + bobWebp.file_size);

  const binned = await write('admin_bin_images', admin.session).send({ ids: [bobPng.id, carolGif.id, 999_999] });
  expect(binned.body).toEqual({
    code: 0,
    msg: '成功',
    data: {
      results: [
        { id: bobPng.id, ok: true, msg: '删除成功' },
        { id: carolGif.id, ok: true, msg: '删除成功' },
        { id: 999_999, ok: false, msg: '图片不存在' },
      ],
      succeeded: 2,
      failed: 1,
    },
  });
  // Binned images still count against their owners, as after their own delete; the owners see them in their bins.
  expect([await usedBytes(svc.db, bob.id), await usedBytes(svc.db, carol.id)]).toEqual([bobBefore, carolBefore]);
  expect((await read('trash', bob.token)).body.data.list.map((item: { id: number }) => item.id)).toEqual([bobPng.id]);
  expect(await storedKeys(svc, 'bin')).toHaveLength(2);

  // Purge takes binned and stored images alike; the stored one goes through the bin first.
  const purged = await write('admin_purge_images', admin.session).send({ ids: [bobPng.id, carolGif.id, bobWebp.id, bobWebp.id] });
  expect(purged.body.data).toEqual({
    results: [
      { id: bobPng.id, ok: true, msg: '已彻底删除' },
      { id: carolGif.id, ok: true, msg: '已彻底删除' },
      { id: bobWebp.id, ok: true, msg: '已彻底删除' },
      { id: bobWebp.id, ok: false, msg: '重复的图片编号' },
    ],
    succeeded: 3,
    failed: 1,
  });
  expect(await usedBytes(svc.db, bob.id)).toBe(0);
  expect(await usedBytes(svc.db, carol.id)).toBe(carolKept.file_size);
  expect((await imageRows(svc.db)).map((row) => [Number(row.id), row.status])).toEqual([[carolKept.id, 'stored']]);
  expect(await storedKeys(svc, 'bin')).toEqual([]);
  expect(await storedKeys(svc, 'public')).toHaveLength(1);
  expect((await read('admin_images', admin.session)).body.data).toMatchObject({ total: 1, list: [{ id: carolKept.id }] });

  expect((await write('admin_purge_images', admin.session).send({})).body).toEqual({ code: 1, msg: '参数错误' });
  expect((await write('admin_bin_images', admin.session).send({ ids: Array.from({ length: 1001 }, (_, i) => i + 1) })).body).toEqual({ code: 1, msg: '一次最多处理 1000 张图片' });
});

test('when an admin bans a user uploads, then their uploads are refused with the message and leave nothing, while sign-in, list and delete still work; unbanned, they upload again', async () => {
  const admin = await sessionOf('root', { isAdmin: true });
  const bob = await sessionOf('bob');
  const kept = await upload(bob.token, 'tiny.png');
  const used = await usedBytes(svc.db, bob.id);

  const banned = await write('admin_ban_uploads', admin.session).send({ id: bob.id, banned: true });
  expect(banned.body).toMatchObject({ code: 0, msg: '上传权限已更新', data: { id: bob.id, username: 'bob', uploads_banned: true, disabled: false } });

  const refused = await write('upload', bob.token).attach('file', fixtureBytes('tiny.gif'), 'x.gif');
  expect([refused.status, refused.body]).toEqual([200, { code: 1, msg: '该账号已被管理员禁止上传图片' }]);
  const refusedStatus = await request(svc.app).post(`${API}?action=upload&http_errors=1`).set('X-API-Token', bob.token).attach('file', fixtureBytes('tiny.gif'), 'x.gif');
  expect([refusedStatus.status, refusedStatus.body]).toEqual([403, { code: 1, msg: '该账号已被管理员禁止上传图片' }]);
  expect((await imageRows(svc.db, bob.id)).map((row) => Number(row.id))).toEqual([kept.id]);
  expect(await usedBytes(svc.db, bob.id)).toBe(used);
  expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);

  const signIn = await request(svc.app).post(`${API}?action=login`).send({ username: 'bob', password: 'password-123' });
  expect(signIn.body).toMatchObject({ code: 0, msg: '登录成功' });
  expect((await read('list', bob.token)).body.data.total).toBe(1);
  expect((await write('delete', bob.token).send({ id: kept.id })).body).toEqual({ code: 0, msg: '删除成功' });
  expect((await read('admin_users', admin.session, '&keyword=bob')).body.data.list).toMatchObject([{ uploads_banned: true }]);

  expect((await write('admin_ban_uploads', admin.session).send({ id: bob.id, banned: false })).body.data.uploads_banned).toBe(false);
  await upload(bob.token, 'tiny.gif');

  expect((await write('admin_ban_uploads', admin.session).send({ id: 999_999, banned: true })).body).toEqual({ code: 1, msg: '用户不存在' });
  expect((await write('admin_ban_uploads', admin.session).send({ id: bob.id })).body).toEqual({ code: 1, msg: '参数错误' });
});
