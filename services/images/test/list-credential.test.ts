import request from 'supertest';
import { createImagesRepository } from '../src/images/images-repository';
import { createTestUser, fixture, useTestService, userAdminFor } from './support/harness';

// The list and bin pages confirm their credential in their own statement, so a replica may answer
// them for a token it looked up in the last minute without looking it up again. These tests hold that
// a token that stopped (reset, revoked, expired, its user disabled) gets exactly what it got before:
// 请先登录, before any check of the parameters, on the first request after it stopped.

const API = '/api/image.php';
const HOUR = 60 * 60 * 1000;
let offsetMs = 0;
const svc = useTestService({}, { clock: () => new Date(Date.now() + offsetMs) });
beforeEach(() => {
  offsetMs = 0;
});

const get = (token: string, query: string) => request(svc.app).get(`${API}?${query}`).set('X-API-Token', token);
const NOT_LOGGED_IN = { code: 1, msg: '请先登录' };
/** Every page shape: list and bin, with a keyword, a category filter, past the end, and a bad parameter. */
const PAGES = ['action=list', 'action=trash', 'action=list&keyword=beach', 'action=trash&keyword=beach', 'action=list&category_id=1', 'action=list&page=99', 'action=list&page=abc', 'action=trash&limit=-1'];

async function userWithImage() {
  const user = await createTestUser(svc.db);
  const uploaded = await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixture('tiny.png'), 'beach.png');
  expect(uploaded.body).toMatchObject({ code: 0 });
  return user;
}

/** Every page once with the token, as a client does before its token stops: each is recalled after. */
async function readEveryPage(token: string) {
  for (const page of PAGES.slice(0, 4)) expect((await get(token, page)).body).toMatchObject({ code: 0, data: { total: expect.any(Number) } });
}

test('when a token in use is reset, then every page shape answers 请先登录 at once, and the new token reads the same pages', async () => {
  const user = await userWithImage();
  await readEveryPage(user.token);
  const { token: fresh } = await userAdminFor(svc.db).resetToken(user.id);
  for (const page of PAGES) expect({ page, body: (await get(user.token, page)).body }).toEqual({ page, body: NOT_LOGGED_IN });
  expect((await get(fresh, 'action=list&keyword=beach')).body).toMatchObject({ code: 0, data: { total: 1, list: [{ original_name: 'beach.png' }] } });
  expect((await get(fresh, 'action=list&page=abc')).body).toEqual({ code: 1, msg: '参数错误' });
});

test('when the user of a token in use is disabled, then its pages answer 请先登录 at once, and again once enabled', async () => {
  const user = await userWithImage();
  await readEveryPage(user.token);
  await svc.db('users').where({ id: user.id }).update({ disabled_at: new Date() });
  for (const page of PAGES) expect((await get(user.token, page)).body).toEqual(NOT_LOGGED_IN);
  await svc.db('users').where({ id: user.id }).update({ disabled_at: null });
  expect((await get(user.token, 'action=list')).body).toMatchObject({ code: 0, data: { total: 1 } });
});

test('when a session in use expires or a named token in use is revoked, then their pages answer 请先登录 at once', async () => {
  const user = await createTestUser(svc.db, 'alice', undefined, { password: 'password-123' });
  const login = await request(svc.app).post(`${API}?action=login`).type('form').send({ username: 'alice', password: 'password-123' });
  const session = login.body.data.token as string;
  const created = await request(svc.app).post(`${API}?action=create_token`).set('X-API-Token', session).send({ name: 'script' });
  const named = created.body.data.token as string;
  await readEveryPage(session);
  await readEveryPage(named);

  await request(svc.app).post(`${API}?action=revoke_token`).set('X-API-Token', session).send({ id: created.body.data.id }).expect(200);
  for (const page of PAGES) expect((await get(named, page)).body).toEqual(NOT_LOGGED_IN);
  // Within the minute a session is recalled, it passes its expiry.
  offsetMs = 168 * HOUR + 1000;
  for (const page of PAGES) expect((await get(session, page)).body).toEqual(NOT_LOGGED_IN);
  expect((await get(user.token, 'action=list')).body).toMatchObject({ code: 0 });
});

test("when a page is read for one user with another user's credential, then nothing is read (a wrong guess reads no one's images)", async () => {
  const owner = await userWithImage();
  const other = await createTestUser(svc.db);
  const credentialOf = async (userId: number) => Number((await svc.db('credentials').where({ user_id: userId, kind: 'account' }).first('id')).id);
  const images = createImagesRepository(svc.db);
  const page = (userId: number, credentialId: number, keyword?: string) =>
    images.list({ userId, credential: { id: credentialId, at: new Date() }, status: 'stored', keyword, limit: 20, offset: 0 });
  expect(await page(owner.id, await credentialOf(other.id))).toBeNull();
  expect(await page(owner.id, await credentialOf(other.id), 'beach')).toBeNull();
  expect(await page(owner.id, await credentialOf(owner.id), 'beach')).toMatchObject({ total: 1 });
});
