import request from 'supertest';
import { addEditor, signedIn } from './support/editors';
import { createKey, openHarness, type Harness } from './support/harness';

// Each API key's requests per clock hour: counted with the limiter's count, written to Postgres by every
// replica (the sums add up), kept across restarts, and shown in the admin per key over the last days.

jest.setTimeout(60_000);

let harness: Harness;
/**
 * Tomorrow 09:30 UTC (17:30 Beijing time): after the real time, since the admin's session cookie expires
 * 12 hours after the test clock's sign-in and the cookie jar drops it by the real time.
 */
const DAY_MS = 24 * 3600_000;
const START = (Math.floor(Date.now() / DAY_MS) + 1) * DAY_MS + 9.5 * 3600_000;
/** `YYYY-MM-DD` of START shifted by `days`; an hour of that day as the table stores it. */
const day = (days = 0) => new Date(START + days * DAY_MS).toISOString().slice(0, 10);
const hourOf = (utcHour: '09' | '10') => `${day()}T${utcHour}:00:00.000Z`;
let nowMs = START;
const clock = () => new Date(nowMs);

beforeAll(async () => {
  harness = await openHarness();
  await harness.db.raw('TRUNCATE editors RESTART IDENTITY CASCADE');
  await addEditor(harness.db, 'alice', 'correct horse');
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  await harness.reset();
  nowMs = START;
});

const stored = async () =>
  (await harness.db('api_key_hourly_requests').select('api_key_id', 'hour', 'requests').orderBy(['api_key_id', 'hour'])).map((row) => ({
    keyId: Number(row.api_key_id),
    hour: new Date(row.hour).toISOString(),
    requests: Number(row.requests),
  }));

describe('API keys: requests per hour', () => {
  it('when two replicas answer a key across two hours and flush, then the table holds each hour once with the sum, 4xx and 429 included', async () => {
    const { apiKey, id } = await createKey(harness.db, { rateLimitPerHour: 2 });
    const other = await createKey(harness.db);
    const one = harness.appWithServices({ clock });
    const two = harness.appWithServices({ clock });
    const call = (app: typeof one.app, key: string, query = 'action=categories') => request(app).get(`/api/index.php?${query}`).set('X-API-Key', key);

    await call(one.app, apiKey);
    await call(one.app, apiKey, 'action=tool&slug=missing'); // 404: counted, as the limiter counts it
    expect((await call(one.app, apiKey)).status).toBe(429); // over the limit of 2, still a request
    await call(two.app, apiKey); // each replica here has its own in-memory limiter
    await call(two.app, other.apiKey);
    await request(one.app).get('/api/index.php?action=categories').set('X-API-Key', 'not-a-key'); // 401: no key to count
    nowMs += 60 * 60 * 1000; // 10:30 UTC
    await call(two.app, apiKey, 'action=stats');

    await Promise.all([one.services.keyHours.flush(), two.services.keyHours.flush()]);
    expect(await stored()).toEqual([
      { keyId: id, hour: hourOf('09'), requests: 4 },
      { keyId: id, hour: hourOf('10'), requests: 1 },
      { keyId: other.id, hour: hourOf('09'), requests: 1 },
    ]);

    // A later flush adds to the row, it does not replace it.
    await call(one.app, apiKey, 'action=stats');
    await one.services.keyHours.flush();
    expect((await stored()).find((row) => row.hour === hourOf('10'))?.requests).toBe(2);
  });

  it('when the keys page is opened, then each key shows its last 24 hours and 7 days, counts not yet written included, and its usage page a table by hour', async () => {
    const { apiKey, id } = await createKey(harness.db, { name: 'mini-program' });
    // Written earlier: 3 days ago (outside 24 h, inside 7 days) and 8 days ago (outside both).
    await harness.db('api_key_hourly_requests').insert([
      { api_key_id: id, hour: new Date(START - 3 * 24 * 3600_000 - 30 * 60_000), requests: 40 },
      { api_key_id: id, hour: new Date(START - 8 * 24 * 3600_000 - 30 * 60_000), requests: 900 },
    ]);
    const { app } = harness.appWithServices({ clock });
    for (let i = 0; i < 5; i++) await request(app).get('/api/index.php?action=categories').set('X-API-Key', apiKey);

    const { agent } = await signedIn(app, 'alice', 'correct horse');
    const list = await agent.get('/admin/keys');
    expect(list.status).toBe(200);
    expect(list.text).toContain('<th scope="col" class="num">最近 24 小时</th><th scope="col" class="num">最近 7 天</th>');
    expect(list.text).toMatch(new RegExp(`<td class="num">5</td>\\s*<td class="num"><a href="/admin/keys/${id}/usage">45<span class="visually-hidden">`));

    const usage = await agent.get(`/admin/keys/${id}/usage`);
    expect(usage.status).toBe(200);
    expect(usage.text).toContain('密钥「mini-program」每小时请求数');
    expect(usage.text).toContain('最近 7 天（北京时间）共 45 次请求');
    // Today (Beijing) 17:00 holds the 5 requests; 3 days earlier, 17:00 the 40.
    const todayRow = new RegExp(`<tr><th scope="row">${day()}</th>(.*?)</tr>`).exec(usage.text)![1]!;
    const cells = [...todayRow.matchAll(/<td class="num">(.*?)<\/td>/g)].map((match) => match[1]);
    expect(cells[17]).toBe('5');
    expect(cells[24]).toBe('<strong>5</strong>');
    expect(usage.text).toMatch(new RegExp(`<tr><th scope="row">${day(-3)}</th>(<td class="num">·</td>){17}<td class="num">40</td>`));
    expect(usage.text).not.toContain('900');
    expect((await agent.get('/admin/keys/99999/usage')).status).toBe(404);
  });

  it('when a key is deleted before its counts are written, then the flush drops them and later counts still go in', async () => {
    const doomed = await createKey(harness.db);
    const kept = await createKey(harness.db);
    const { app, services } = harness.appWithServices({ clock });
    await request(app).get('/api/index.php?action=categories').set('X-API-Key', doomed.apiKey);
    await request(app).get('/api/index.php?action=categories').set('X-API-Key', kept.apiKey);
    await harness.db('api_keys').where({ id: doomed.id }).delete();
    await services.keyHours.flush();
    expect(await stored()).toEqual([{ keyId: kept.id, hour: hourOf('09'), requests: 1 }]);
  });
});
