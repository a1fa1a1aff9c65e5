import request from 'supertest';
import { COUNTED_UP_TO, EXACT_UP_TO, ESTIMATE_SAMPLE, RARE_IN_SAMPLE, searchTotal } from '../src/images/listing-repository';
import { createTestUser, openTestService, type TestService } from './support/harness';

const API = '/api/image.php';
const IMAGES = 4_000;

/**
 * Keyword search totals and pages (issue 45): on PGlite by default, on real Postgres with
 * TEST_DATABASE_URL. A user with 4,000 images whose names hold words in 10 %, 1 %, 0.1 % and none of
 * them, a CJK word, the camera prefix `IMG_` (79 %), and the LIKE metacharacters; a third of them in a second category, a seventh binned.
 * Each answer is held to the rows themselves, read with strpos (no LIKE, no escaping).
 */
describe('keyword search: pages and totals', () => {
  let svc: TestService;
  let user: { id: number; token: string };
  let travel: number;

  beforeAll(async () => {
    svc = await openTestService();
    user = await createTestUser(svc.db);
    const other = await createTestUser(svc.db);
    const created = await request(svc.app).post(`${API}?action=create_category`).set('X-API-Token', user.token).send({ name: 'travel' });
    travel = created.body.data.id as number;
    const home = await svc.db('categories').where({ user_id: user.id, is_default: true }).first('id');
    const otherHome = await svc.db('categories').where({ user_id: other.id, is_default: true }).first('id');
    const insert = (userId: number, categoryId: number, travelId: number | null, count: number) =>
      svc.db.raw(
        `INSERT INTO images (user_id, category_id, storage_key, format, original_name, file_size, width, height, status, created_at, deleted_at)
         SELECT ?, CASE WHEN g % 3 = 0 AND ?::bigint IS NOT NULL THEN ?::bigint ELSE ?::bigint END, md5(?::text || ':' || g) || '.jpg', 'jpeg',
                CASE WHEN g % 10 = 3 THEN 'Holiday-' || g || '.jpg'
                     WHEN g % 10 = 5 THEN '微信图片_' || g || '.jpg'
                     WHEN g % 100 = 7 THEN 'Screenshot ' || g || '.png'
                     WHEN g % 1000 = 9 THEN 'aurora-' || g || '.jpg'
                     WHEN g % 500 = 1 THEN 'sale_100%\\off-' || g || '.png'
                     WHEN g % 500 = 11 THEN 'sale 1000 off-' || g || '.png'
                     ELSE 'IMG_' || lpad(g::text, 7, '0') || '.JPG' END,
                1000 + g, 10, 10, CASE WHEN g % 7 = 0 THEN 'binned' ELSE 'stored' END,
                now() - make_interval(secs => ? - g), CASE WHEN g % 7 = 0 THEN now() - make_interval(secs => g % 97) END
         FROM generate_series(1, ?) AS g`,
        [userId, travelId, travelId, categoryId, userId, count, count],
      );
    await insert(user.id, home.id, travel, IMAGES);
    await insert(other.id, otherHome.id, null, 300);
    await svc.db.raw('ANALYZE images');
  }, 120_000);
  afterAll(async () => svc?.close());

  /** The matching rows, in the page order, read without LIKE. */
  async function expected(status: 'stored' | 'binned', keyword: string, categoryId?: number): Promise<number[]> {
    const order = status === 'binned' ? 'deleted_at DESC, id DESC' : 'id DESC';
    const rows = await svc.db.raw(
      `SELECT id FROM images WHERE user_id = ? AND status = ? AND (?::bigint IS NULL OR category_id = ?::bigint) AND strpos(lower(original_name), lower(?)) > 0 ORDER BY ${order}`,
      [user.id, status, categoryId ?? null, categoryId ?? null, keyword],
    );
    return (rows.rows as Array<{ id: string | number }>).map((row) => Number(row.id));
  }

  /** Whether the service counts a keyword's matches: the newest ESTIMATE_SAMPLE are all there is, hold it at most RARE_IN_SAMPLE times, or their share applied to all is at most COUNTED_UP_TO. */
  async function counted(status: 'stored' | 'binned', keyword: string, categoryId?: number): Promise<boolean> {
    const { rows } = await svc.db.raw(
      `SELECT count(*) AS sampled, count(*) FILTER (WHERE strpos(lower(original_name), lower(?)) > 0) AS matched
       FROM (SELECT original_name FROM images WHERE user_id = ? AND status = ? AND (?::bigint IS NULL OR category_id = ?::bigint) ORDER BY id DESC LIMIT ?) AS newest`,
      [keyword, user.id, status, categoryId ?? null, categoryId ?? null, ESTIMATE_SAMPLE],
    );
    const owned = await svc.db('images').where({ user_id: user.id, status }).modify((q) => (categoryId === undefined ? q : q.where({ category_id: categoryId }))).count({ n: '*' }).first();
    const sample = rows[0] as { sampled: string; matched: string };
    const hits = Number(sample.matched);
    return Number(sample.sampled) < ESTIMATE_SAMPLE || hits <= RARE_IN_SAMPLE || (Number(owned!.n) * hits) / ESTIMATE_SAMPLE <= COUNTED_UP_TO;
  }

  async function page(action: 'list' | 'trash', keyword: string, pageNumber: number, limit: number, categoryId?: number) {
    const category = categoryId === undefined ? '' : `&category_id=${categoryId}`;
    const res = await request(svc.app)
      .get(`${API}?action=${action}&keyword=${encodeURIComponent(keyword)}&page=${pageNumber}&limit=${limit}${category}`)
      .set('X-API-Token', user.token);
    expect(res.body.code).toBe(0);
    return res.body.data as { list: Array<{ id: number }>; total: number; page: number; limit: number; total_estimated?: true };
  }

  const KEYWORDS = ['holiday', 'HOLIDAY', '微信图片', 'screenshot', 'aurora', 'zebra', 'IMG_', 'img_0001', '100%', '%', '_', '\\', '%\\off', '1000', '0_1'];
  const SHAPES: Array<{ action: 'list' | 'trash'; status: 'stored' | 'binned'; category: boolean }> = [
    { action: 'list', status: 'stored', category: false },
    { action: 'list', status: 'stored', category: true },
    { action: 'trash', status: 'binned', category: false },
    { action: 'trash', status: 'binned', category: true },
  ];

  test.each(SHAPES)('when $action (category filter: $category) is searched, then every page holds its matches in order and the total is exact for a rare word, flagged for a common one', async ({ action, status, category }) => {
    const categoryId = category ? travel : undefined;
    for (const keyword of KEYWORDS) {
      const ids = await expected(status, keyword, categoryId);
      const rare = await counted(status, keyword, categoryId);
      const limit = 20;
      const last = Math.max(Math.ceil(ids.length / limit), 1);
      for (const pageNumber of [...new Set([1, 2, last, last + 1, 1000])]) {
        const data = await page(action, keyword, pageNumber, limit, categoryId);
        const offset = (pageNumber - 1) * limit;
        const what = `${action} keyword=${keyword} category=${category} page=${pageNumber}`;
        expect({ what, ids: data.list.map((item) => item.id) }).toEqual({ what, ids: ids.slice(offset, offset + limit) });
        const partial = data.list.length > 0 && data.list.length < limit;
        if ((rare && ids.length <= EXACT_UP_TO) || partial) {
          expect({ what, total: data.total, estimated: data.total_estimated }).toEqual({ what, total: ids.length, estimated: undefined });
        } else {
          // A common word: an estimate, flagged, no less than the page shows, within a fifth of the truth
          // here (the seeded shares are even, so the newest images' share is the user's).
          expect({ what, estimated: data.total_estimated }).toEqual({ what, estimated: true });
          if (data.list.length === limit) expect(data.total).toBeGreaterThan(offset + limit);
          if (data.list.length === 0) expect(data.total).toBeLessThanOrEqual(offset);
          else expect(Math.abs(data.total - ids.length)).toBeLessThanOrEqual(ids.length / 5);
        }
      }
    }
  }, 120_000);

  test('when a rare word is searched, then its total is exact; a common word has its total flagged as an estimate', async () => {
    const rare = await page('list', 'aurora', 1, 20);
    expect(rare).toMatchObject({ total: (await expected('stored', 'aurora')).length });
    expect(rare.total_estimated).toBeUndefined();
    for (const common of ['IMG_', 'jpg']) {
      const found = await page('list', common, 1, 20);
      expect(found.total_estimated).toBe(true);
      expect(found.list).toHaveLength(20);
    }
    const plain = await request(svc.app).get(`${API}?action=list`).set('X-API-Token', user.token);
    expect(plain.body.data.total_estimated).toBeUndefined();
  });
});

describe('keyword search totals from their counts', () => {
  const page = { offset: 0, limit: 20, rows: 20 };
  test('when the sample is every image there is, then its matches are the total', () => {
    expect(searchTotal({ owned: 700, sampled: 700, sampleMatched: 70, matched: null }, page)).toEqual({ total: 70, estimated: false });
    expect(searchTotal({ owned: 0, sampled: 0, sampleMatched: 0, matched: null }, { ...page, rows: 0 })).toEqual({ total: 0, estimated: false });
  });
  test('when the matches were counted and are at most EXACT_UP_TO, then the count is the total', () => {
    const counted = { owned: 1_000_000, sampled: ESTIMATE_SAMPLE, sampleMatched: 0 };
    expect(searchTotal({ ...counted, matched: 0 }, { ...page, rows: 0 })).toEqual({ total: 0, estimated: false });
    expect(searchTotal({ ...counted, matched: EXACT_UP_TO }, page)).toEqual({ total: EXACT_UP_TO, estimated: false });
  });
  test('when the sample finds the word common, then the total is its share of the images, kept within what the page shows', () => {
    const many = { owned: 1_000_000, sampled: ESTIMATE_SAMPLE, sampleMatched: ESTIMATE_SAMPLE / 10, matched: null };
    expect(searchTotal(many, page)).toEqual({ total: 100_000, estimated: true });
    expect(searchTotal(many, { offset: 200_000, limit: 20, rows: 20 })).toEqual({ total: 200_021, estimated: true });
    expect(searchTotal(many, { offset: 50_000, limit: 20, rows: 0 })).toEqual({ total: 50_000, estimated: true });
    expect(searchTotal(many, { offset: 60_000, limit: 20, rows: 7 })).toEqual({ total: 60_007, estimated: false });
    const some = { owned: 100_000, sampled: ESTIMATE_SAMPLE, sampleMatched: 3, matched: null };
    expect(searchTotal(some, page)).toEqual({ total: 300, estimated: true });
    expect(searchTotal(some, { offset: 400, limit: 20, rows: 20 })).toEqual({ total: 421, estimated: true });
  });
  test('when the sample found few but the count reached past EXACT_UP_TO, then the total is an estimate above EXACT_UP_TO', () => {
    const skewed = { owned: 1_000_000, sampled: ESTIMATE_SAMPLE, sampleMatched: 0, matched: EXACT_UP_TO + 1 };
    expect(searchTotal(skewed, page)).toEqual({ total: EXACT_UP_TO + 1, estimated: true });
  });
});
