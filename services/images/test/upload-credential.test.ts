import request from 'supertest';
import { PERSONAL } from './fixtures/make-fixtures';
import { createTestUser, distinctBytes, expectConsistentStore, filesIn, fixture, fixtureBytes, imageRows, useTestService, publicBytes, usedBytes, userAdminFor } from './support/harness';

// A token in use whose credential, user or group changes: its next upload gets exactly the answer a
// fresh lookup gives, on the first request after the change, and leaves nothing behind when refused:
// no file, no row, no charge. (Every upload looks its credential up; the quota rules are charge_upload's.)

const UPLOAD = '/api/image.php?action=upload';
const svc = useTestService();

const NOT_LOGGED_IN = { code: 1, msg: '请先登录' };
const TOO_LARGE = { code: 1, msg: '文件大小超出限制' };
const upload = (token: string, name: string, via: 'header' | 'body' = 'header') => {
  const post = request(svc.app).post(UPLOAD);
  if (via === 'header') post.set('X-API-Token', token);
  else post.field('token', token);
  // Each upload a picture of its own where the fixture can be varied (the same bytes again would be answered with the image already stored).
  return /\.(png|jpg)$/.test(name) ? post.attach('file', distinctBytes(name), name) : post.attach('file', fixture(name));
};

/** A user in a group of their own, with a first upload done: the token is in use. */
async function userInUse(group: { maxFileSize?: number; quotaBytes?: number; keepMetadata?: boolean } = {}) {
  const name = `g${Math.random().toString(16).slice(2, 10)}`;
  await svc.db('groups').insert({ name, max_file_size: group.maxFileSize ?? 1024 * 1024, quota_bytes: group.quotaBytes ?? 1024 * 1024, keep_metadata: group.keepMetadata ?? false });
  const user = await createTestUser(svc.db, undefined, name);
  expect((await upload(user.token, 'tiny.png')).body).toMatchObject({ code: 0 });
  return { ...user, group: name };
}

/** The store, rows and charge as they are now, to compare after a refusal. */
async function stateOf(userId: number) {
  return { rows: (await imageRows(svc.db, userId)).length, used: await usedBytes(svc.db, userId), public: filesIn(svc.storageDir, 'public').length, tmp: filesIn(svc.storageDir, 'tmp') };
}

test.each(['header', 'body'] as const)(
  'when a token in use (%s) is reset, then its next upload answers 请先登录, with a file or without, nothing is stored or charged, and the new token uploads',
  async (via) => {
    const user = await userInUse();
    expect((await upload(user.token, 'photo.webp', via)).body).toMatchObject({ code: 0 });
    const before = await stateOf(user.id);
    const { token: fresh } = await userAdminFor(svc.db).resetToken(user.id);

    expect((await upload(user.token, 'photo.webp', via)).body).toEqual(NOT_LOGGED_IN);
    const noFile = request(svc.app).post(UPLOAD);
    if (via === 'header') noFile.set('X-API-Token', user.token);
    else noFile.field('token', user.token);
    expect((await noFile.field('category_id', 'abc')).body).toEqual(NOT_LOGGED_IN);
    expect(await stateOf(user.id)).toEqual(before);

    expect((await upload(fresh, 'photo.webp', via)).body).toMatchObject({ code: 0, msg: '上传成功' });
    await expectConsistentStore(svc);
  },
);

test('when a token in use is reset, then a retry of its stored upload (same Idempotency-Key) answers 请先登录, not the stored result', async () => {
  const user = await userInUse();
  const send = (token: string) => request(svc.app).post(UPLOAD).set('X-API-Token', token).set('Idempotency-Key', 'retry-after-reset').attach('file', fixture('photo.webp'));
  const first = await send(user.token);
  expect(first.body).toMatchObject({ code: 0 });
  expect((await send(user.token)).body).toEqual(first.body);
  const before = await stateOf(user.id);
  const { token: fresh } = await userAdminFor(svc.db).resetToken(user.id);

  expect((await send(user.token)).body).toEqual(NOT_LOGGED_IN);
  expect(await stateOf(user.id)).toEqual(before);
  expect((await send(fresh)).body).toEqual(first.body);
});

test('when the user of a token in use is disabled, then its upload answers 请先登录 at once, and uploads again once enabled', async () => {
  const user = await userInUse();
  const before = await stateOf(user.id);
  await svc.db('users').where({ id: user.id }).update({ disabled_at: new Date() });
  expect((await upload(user.token, 'photo.webp')).body).toEqual(NOT_LOGGED_IN);
  expect(await stateOf(user.id)).toEqual(before);
  await svc.db('users').where({ id: user.id }).update({ disabled_at: null });
  expect((await upload(user.token, 'photo.webp')).body).toMatchObject({ code: 0 });
});

test("when the group's size limit is lowered while its token is in use, then a file over the new limit answers 文件大小超出限制 at once; raised again, the same file is stored", async () => {
  const size = fixtureBytes('photo.webp').length;
  const user = await userInUse({ maxFileSize: size + 1000 });
  expect((await upload(user.token, 'photo.webp')).body).toMatchObject({ code: 0 });
  const before = await stateOf(user.id);

  // Another replica's admin lowers the limit.
  await svc.db('groups').where({ name: user.group }).update({ max_file_size: size - 1 });
  expect((await upload(user.token, 'photo.webp')).body).toEqual(TOO_LARGE);
  expect(await stateOf(user.id)).toEqual(before);

  await svc.db('groups').where({ name: user.group }).update({ max_file_size: size });
  expect((await upload(user.token, 'photo.webp')).body).toMatchObject({ code: 0, data: { file_size: size } });
  await expectConsistentStore(svc);
});

test("when a group's metadata setting changes while its token is in use, then the next upload follows the new setting", async () => {
  const texts = Object.values(PERSONAL);
  const personalIn = (bytes: Buffer) => texts.filter((text) => bytes.toString('latin1').includes(text));
  const user = await userInUse({ keepMetadata: true });
  const kept = await upload(user.token, 'private-phone.jpg');
  expect(personalIn((await publicBytes(svc, kept.body.data.url))!)).not.toEqual([]);

  await svc.db('groups').where({ name: user.group }).update({ keep_metadata: false });
  const stripped = await upload(user.token, 'private-phone.jpg');
  expect(stripped.body).toMatchObject({ code: 0 });
  expect(personalIn((await publicBytes(svc, stripped.body.data.url))!)).toEqual([]);

  await svc.db('groups').where({ name: user.group }).update({ keep_metadata: true });
  const keptAgain = await upload(user.token, 'private-phone.jpg');
  expect(personalIn((await publicBytes(svc, keptAgain.body.data.url))!)).not.toEqual([]);
  expect(await usedBytes(svc.db, user.id)).toBe((await imageRows(svc.db, user.id)).reduce((sum, row) => sum + Number(row.file_size), 0));
  await expectConsistentStore(svc);
});

test("when a group's quota is raised while its user, at the quota, has a token in use, then the next upload is stored: the quota is read as the upload is charged", async () => {
  const photo = fixtureBytes('photo.webp').length;
  const tiny = fixtureBytes('tiny.png').length;
  const user = await userInUse({ quotaBytes: photo + tiny });
  expect((await upload(user.token, 'photo.webp')).body).toMatchObject({ code: 0 });
  // Full: refused, and refused again.
  for (let i = 0; i < 2; i++) expect((await upload(user.token, 'tiny.png')).body).toEqual({ code: 1, msg: '存储空间不足' });
  const before = await stateOf(user.id);
  expect(before.used).toBe(photo + tiny);

  await svc.db('groups').where({ name: user.group }).update({ quota_bytes: photo + 2 * tiny });
  expect((await upload(user.token, 'tiny.png')).body).toMatchObject({ code: 0 });
  expect(await usedBytes(svc.db, user.id)).toBe(photo + 2 * tiny);
  expect((await upload(user.token, 'tiny.png')).body).toEqual({ code: 1, msg: '存储空间不足' });
  await expectConsistentStore(svc);
});
