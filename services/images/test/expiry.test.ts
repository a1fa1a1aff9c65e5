import request from 'supertest';
import { createTestUser, distinctBytes, imageRows, useTestService, storedKeys, usedBytes } from './support/harness';

/**
 * An expiry per image: set at upload (`expires_in` seconds or `expires_at` ISO 8601) or later
 * (`set_expiry`), cleared with neither; the expiry job moves what is due into the owner's bin. The
 * service's clock is injected: the job and the validation see the time the test sets, with no sleeps.
 */
jest.setTimeout(60_000);

let now = new Date('2030-01-01T00:00:00Z');
const svc = useTestService({}, { clock: () => now });
beforeEach(() => {
  now = new Date('2030-01-01T00:00:00Z');
});

const API = '/api/image.php';
const MINUTE = 60 * 1000;

function upload(token: string, fields: Record<string, string> = {}) {
  const req = request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token);
  for (const [name, value] of Object.entries(fields)) req.field(name, value);
  return req.attach('file', distinctBytes('tiny.png'), { filename: 'tiny.png', contentType: 'image/png' });
}

const listed = async (token: string) => (await request(svc.app).get(`${API}?action=list&links=1`).set('X-API-Token', token)).body.data.list as Array<{ id: number; expires_at: string | null }>;

describe('setting an expiry', () => {
  test('when an upload gives expires_in or expires_at, then the list (links=1) shows when the image expires; without, null', async () => {
    const user = await createTestUser(svc.db);
    const inHour = await upload(user.token, { expires_in: '3600' });
    const atTime = await upload(user.token, { expires_at: '2030-01-02T08:00:00+08:00' });
    const never = await upload(user.token);
    for (const res of [inHour, atTime, never]) expect(res.body).toMatchObject({ code: 0, msg: '上传成功' });
    // The upload answer keeps the contract's fields.
    expect(Object.keys(inHour.body.data)).toEqual(Object.keys(never.body.data));
    const byId = new Map((await listed(user.token)).map((item) => [item.id, item.expires_at]));
    expect(byId.get(inHour.body.data.id)).toBe('2030-01-01T01:00:00.000Z');
    expect(byId.get(atTime.body.data.id)).toBe('2030-01-02T00:00:00.000Z');
    expect(byId.get(never.body.data.id)).toBeNull();
    // The contract's list items (no links=1) carry no extension field.
    const plain = (await request(svc.app).get(`${API}?action=list`).set('X-API-Token', user.token)).body.data.list[0];
    expect(plain).not.toHaveProperty('expires_at');
  });

  test.each([
    [{ expires_in: 'soon' }, '过期时间格式错误：expires_in 须为整数秒，expires_at 须为带时区的 ISO 8601 时间'],
    [{ expires_in: '1.5' }, '过期时间格式错误：expires_in 须为整数秒，expires_at 须为带时区的 ISO 8601 时间'],
    [{ expires_at: '2030-01-02 08:00' }, '过期时间格式错误：expires_in 须为整数秒，expires_at 须为带时区的 ISO 8601 时间'],
    [{ expires_at: '2030-01-02T08:00:00' }, '过期时间格式错误：expires_in 须为整数秒，expires_at 须为带时区的 ISO 8601 时间'],
    [{ expires_in: '59' }, '过期时间须在 1 分钟之后、10 年之内'],
    [{ expires_in: String(11 * 365 * 24 * 3600) }, '过期时间须在 1 分钟之后、10 年之内'],
    [{ expires_at: '2029-12-31T23:59:00Z' }, '过期时间须在 1 分钟之后、10 年之内'],
    [{ expires_in: '3600', expires_at: '2030-01-02T00:00:00Z' }, 'expires_in 和 expires_at 只能指定其中一个'],
  ])('when an upload gives %j, then %s, HTTP 200, the envelope only, and nothing is stored', async (fields, message) => {
    const user = await createTestUser(svc.db);
    const res = await upload(user.token, fields as Record<string, string>);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg: message });
    expect(JSON.stringify(res.body)).not.toMatch(/Error|stack|\n\s+at /);
    expect(await imageRows(svc.db, user.id)).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(0);
  });

  test('when set_expiry is given a time, then the image expires then; with neither field, the expiry is cleared; another user or a bad id is refused', async () => {
    const user = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const image = (await upload(user.token)).body.data;
    const set = await request(svc.app).post(`${API}?action=set_expiry`).set('X-API-Token', user.token).send({ id: image.id, expires_in: 7200 });
    expect(set.body).toMatchObject({ code: 0, msg: '过期时间已设置', data: { id: image.id, expires_at: '2030-01-01T02:00:00.000Z' } });
    const cleared = await request(svc.app).post(`${API}?action=set_expiry`).set('X-API-Token', user.token).send({ id: image.id });
    expect(cleared.body).toMatchObject({ code: 0, msg: '过期时间已清除', data: { id: image.id, expires_at: null } });
    const theirs = await request(svc.app).post(`${API}?action=set_expiry`).set('X-API-Token', other.token).send({ id: image.id, expires_in: 7200 });
    expect(theirs.body).toEqual({ code: 1, msg: '图片不存在' });
    const bad = await request(svc.app).post(`${API}?action=set_expiry`).set('X-API-Token', user.token).send({ id: image.id, expires_at: 'tomorrow' });
    expect(bad.body).toEqual({ code: 1, msg: '过期时间格式错误：expires_in 须为整数秒，expires_at 须为带时区的 ISO 8601 时间' });
    expect((await listed(user.token))[0]!.expires_at).toBeNull();
  });
});

describe('the expiry job', () => {
  test('when the job runs, then exactly the images whose expiry has passed go into the bin; quota stays charged until they are purged', async () => {
    const user = await createTestUser(svc.db);
    const soon = (await upload(user.token, { expires_in: '60' })).body.data;
    const later = (await upload(user.token, { expires_in: '3600' })).body.data;
    const never = (await upload(user.token)).body.data;
    const charged = await usedBytes(svc.db, user.id);

    expect(await svc.runExpiry()).toBe(0);
    now = new Date(now.getTime() + MINUTE); // exactly at the first one's expiry
    expect(await svc.runExpiry()).toBe(1);
    const statuses = async () => Object.fromEntries((await imageRows(svc.db, user.id)).map((row) => [Number(row.id), row.status]));
    expect(await statuses()).toEqual({ [soon.id]: 'binned', [later.id]: 'stored', [never.id]: 'stored' });
    // In the bin as if deleted: its file left public/, the quota still holds it (until purged).
    expect(await storedKeys(svc, 'bin')).toHaveLength(1);
    expect(await storedKeys(svc, 'public')).toHaveLength(2);
    expect(await usedBytes(svc.db, user.id)).toBe(charged);
    const trash = (await request(svc.app).get(`${API}?action=trash`).set('X-API-Token', user.token)).body.data.list;
    expect(trash.map((item: { id: number }) => item.id)).toEqual([soon.id]);

    now = new Date(now.getTime() + 2 * 60 * MINUTE);
    expect(await svc.runExpiry()).toBe(1);
    expect(await statuses()).toEqual({ [soon.id]: 'binned', [later.id]: 'binned', [never.id]: 'stored' });
    expect(await svc.runExpiry()).toBe(0);

    await request(svc.app).post(`${API}?action=purge`).set('X-API-Token', user.token).send({ id: soon.id }).expect(200);
    expect(await usedBytes(svc.db, user.id)).toBe(charged - soon.file_size);
  });

  test('when an image is restored from the bin after it expired, then it stays (its expiry is gone); a cleared expiry is never binned', async () => {
    const user = await createTestUser(svc.db);
    const image = (await upload(user.token, { expires_in: '120' })).body.data;
    const kept = (await upload(user.token, { expires_in: '120' })).body.data;
    await request(svc.app).post(`${API}?action=set_expiry`).set('X-API-Token', user.token).send({ id: kept.id, expires_in: '' }).expect(200);
    now = new Date(now.getTime() + 5 * MINUTE);
    expect(await svc.runExpiry()).toBe(1);
    await request(svc.app).post(`${API}?action=restore`).set('X-API-Token', user.token).send({ id: image.id }).expect(200);
    now = new Date(now.getTime() + 5 * MINUTE);
    expect(await svc.runExpiry()).toBe(0);
    expect((await imageRows(svc.db, user.id)).map((row) => [row.status, row.expires_at])).toEqual([
      ['stored', null],
      ['stored', null],
    ]);
  });

  test('when another replica holds the job lease, then this one skips the run; once the lease has expired, it runs', async () => {
    const user = await createTestUser(svc.db);
    await upload(user.token, { expires_in: '60' });
    now = new Date(now.getTime() + 2 * MINUTE);
    await svc.db('job_leases').insert({ name: 'image-expiry', holder: 'another-replica', expires_at: svc.db.raw("now() + interval '1 minute'") });
    expect(await svc.runExpiry()).toBe(0);
    expect((await imageRows(svc.db, user.id))[0]!.status).toBe('stored');
    await svc.db('job_leases').where({ name: 'image-expiry' }).update({ expires_at: svc.db.raw("now() - interval '1 second'") });
    expect(await svc.runExpiry()).toBe(1);
    expect((await imageRows(svc.db, user.id))[0]!.status).toBe('binned');
    await svc.db('job_leases').delete();
  });
});
