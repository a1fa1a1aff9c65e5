import request from 'supertest';
import { describeWithRealServer } from '@platform/kit/testing';
import { createTestUser, distinctBytes, expectConsistentStore, expectExactCounts, openTestService, type TestService } from './support/harness';

const API = '/api/image.php';

async function upload(svc: TestService, token: string, categoryId?: number): Promise<number> {
  const req = request(svc.app).post(`${API}?action=upload`).set('X-API-Token', token);
  if (categoryId !== undefined) req.field('category_id', String(categoryId));
  const res = await req.attach('file', distinctBytes('tiny.png'), 'tiny.png'); // each a picture of its own (deduplication)
  expect(res.body).toMatchObject({ code: 0 });
  return res.body.data.id as number;
}

async function act(svc: TestService, token: string, action: 'delete' | 'restore' | 'purge', id: number): Promise<void> {
  const res = await request(svc.app).post(`${API}?action=${action}`).set('X-API-Token', token).send({ id });
  expect(res.body).toMatchObject({ code: 0 });
}

async function totals(svc: TestService, token: string, query = ''): Promise<{ list: number; trash: number }> {
  const list = await request(svc.app).get(`${API}?action=list${query}`).set('X-API-Token', token);
  const trash = await request(svc.app).get(`${API}?action=trash${query}`).set('X-API-Token', token);
  return { list: list.body.data.total, trash: trash.body.data.total };
}

describe('list totals from the image counters', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService();
  });
  afterAll(async () => svc?.close());

  test('when images are uploaded, deleted, restored and purged, then every total stays exact, per category too', async () => {
    const user = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const created = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token).send({ name: '旅行' });
    const travel = created.body.data.id as number;

    const ids = [await upload(svc, user.token), await upload(svc, user.token), await upload(svc, user.token, travel)];
    await upload(svc, other.token);
    expect(await totals(svc, user.token)).toEqual({ list: 3, trash: 0 });
    expect(await totals(svc, user.token, `&category_id=${travel}`)).toEqual({ list: 1, trash: 0 });
    await expectExactCounts(svc.db);

    await act(svc, user.token, 'delete', ids[0]!);
    await act(svc, user.token, 'delete', ids[2]!);
    expect(await totals(svc, user.token)).toEqual({ list: 1, trash: 2 });
    expect(await totals(svc, user.token, `&category_id=${travel}`)).toEqual({ list: 0, trash: 1 });

    await act(svc, user.token, 'restore', ids[2]!);
    expect(await totals(svc, user.token)).toEqual({ list: 2, trash: 1 });

    await act(svc, user.token, 'purge', ids[0]!);
    expect(await totals(svc, user.token)).toEqual({ list: 2, trash: 0 });
    expect(await totals(svc, other.token)).toEqual({ list: 1, trash: 0 });
    await expectConsistentStore(svc);
  });

  test('when a statement fails after changing rows, then the counters roll back with them', async () => {
    const user = await createTestUser(svc.db);
    await upload(svc, user.token);
    await expect(
      svc.db.transaction(async (trx) => {
        await trx('images').where({ user_id: user.id }).update({ status: 'binned', deleted_at: trx.fn.now() });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await totals(svc, user.token)).toEqual({ list: 1, trash: 0 });
    await expectExactCounts(svc.db);
  });

  test('when a keyword is given, then the total counts only matching names, exactly', async () => {
    const user = await createTestUser(svc.db);
    await upload(svc, user.token);
    await svc.db('images').where({ user_id: user.id }).update({ original_name: 'Sunset_100%.webp' });
    await upload(svc, user.token);
    const res = await request(svc.app).get(`${API}?action=list&keyword=${encodeURIComponent('set_100%')}`).set('X-API-Token', user.token);
    expect(res.body.data.total).toBe(1);
    await expectExactCounts(svc.db);
  });
});

// Needs real Postgres: PGlite has a single connection, so statements never interleave there.
describeWithRealServer('TEST_DATABASE_URL', 'image counters under concurrency (real Postgres)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await openTestService();
  });
  afterAll(async () => svc?.close());

  test('when uploads, deletes, restores and purges of one user race each other, then the counters equal the rows', async () => {
    const user = await createTestUser(svc.db);
    const first = await Promise.all(Array.from({ length: 8 }, () => upload(svc, user.token)));
    const send = (action: string, id: number) => request(svc.app).post(`${API}?action=${action}`).set('X-API-Token', user.token).send({ id });
    await Promise.all([
      ...Array.from({ length: 8 }, () => upload(svc, user.token)),
      ...first.slice(0, 6).map((id) => send('delete', id)),
      // Each of these may find its image in either state: whatever wins, the counts must follow.
      ...first.slice(0, 3).map((id) => send('restore', id)),
      ...first.slice(3, 6).map((id) => send('purge', id)),
      ...first.slice(6).map((id) => send('delete', id)),
    ]);
    await expectConsistentStore(svc);
    const rows = await svc.db('images').where({ user_id: user.id }).select('status');
    expect(await totals(svc, user.token)).toEqual({
      list: rows.filter((row) => row.status === 'stored').length,
      trash: rows.filter((row) => row.status === 'binned').length,
    });
  });
});
