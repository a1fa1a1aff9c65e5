import request from 'supertest';
import { describeWithRealServer } from '@platform/kit/testing';
import { createTestUser, openTestService, type TestService } from './support/harness';

// Needs real Postgres: the point is the answers and query plans of the production database at this size.
// Speed itself belongs to a benchmark, not to a timed unit test.
describeWithRealServer('TEST_DATABASE_URL', 'list at scale (real Postgres, 100,000 images for one user)', () => {
  let svc: TestService;
  let token: string;

  beforeAll(async () => {
    svc = await openTestService();
    const user = await createTestUser(svc.db, 'heavy');
    token = user.token;
    const other = await createTestUser(svc.db, 'neighbour');
    const category = await svc.db('categories').where({ user_id: user.id, is_default: true }).first('id');
    const otherCategory = await svc.db('categories').where({ user_id: other.id, is_default: true }).first('id');
    const insertMany = (userId: number, categoryId: number, count: number, prefix: string) =>
      svc.db.raw(
        `INSERT INTO images (user_id, category_id, storage_key, format, original_name, file_size, width, height, status, created_at)
         SELECT ?, ?, '2026/01/01/' || md5(? || g::text) || '.jpg', 'jpeg',
                'IMG_' || lpad(g::text, 6, '0') || CASE WHEN g % 1000 = 0 THEN '_sunset' ELSE '' END || '.jpg',
                1000 + g, 100, 100, CASE WHEN g % 50 = 1 THEN 'binned' ELSE 'stored' END, now() - (g || ' seconds')::interval
         FROM generate_series(1, ?) AS g`,
        [userId, categoryId, prefix, count],
      );
    await insertMany(user.id, category.id, 100_000, 'a');
    await insertMany(other.id, otherCategory.id, 100_000, 'b');
    await svc.db.raw('ANALYZE images');
  }, 120_000);
  afterAll(async () => svc?.close());

  const list = async (query: string) => {
    const res = await request(svc.app).get(`/api/image.php?action=list${query}`).set('X-API-Token', token);
    expect(res.body.code).toBe(0);
    return res.body.data;
  };

  test('when the first page is listed, then the total is exact', async () => {
    const data = await list('');
    expect(data.total).toBe(98_000);
    expect(data.list).toHaveLength(20);
  });

  test('when a deep page is listed, then it is full', async () => {
    const data = await list('&page=4000&limit=20');
    expect(data.list).toHaveLength(20);
  });

  test('when a keyword is searched, then it matches case-insensitively and treats _ literally', async () => {
    const data = await list('&keyword=SUNSET');
    expect(data.total).toBe(100);
    const escaped = await list('&keyword=0_sun');
    expect(escaped.total).toBe(100);
  });

  test('when list queries are planned, then they use the per-user indexes rather than scanning the table', async () => {
    const user = await svc.db('users').where({ name: 'heavy' }).first('id');
    const plan = await svc.db.raw(
      "EXPLAIN SELECT * FROM images WHERE user_id = ? AND status = 'stored' ORDER BY id DESC LIMIT 20",
      [user.id],
    );
    const text = plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Index Scan|Index Only Scan|Bitmap Index Scan/);
    expect(text).not.toMatch(/Seq Scan on images/);
  });

  test('when a word is searched for a user whose images are older than another user\'s, then Postgres walks that user\'s own index, not the primary key through the other\'s rows', async () => {
    const user = await svc.db('users').where({ name: 'heavy' }).first('id');
    const planOf = async (sql: string) => {
      const plan = await svc.db.raw(`EXPLAIN ${sql}`, [user.id]);
      return plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    };
    // The two walks of a search (src/images/listing-repository.ts): the newest names it samples, and a common word's page.
    const sample = await planOf("SELECT lower(original_name) AS name FROM images WHERE user_id = ? AND status = 'stored' ORDER BY id DESC LIMIT 1000");
    const page = await planOf("SELECT id FROM images WHERE user_id = ? AND status = 'stored' AND lower(original_name) LIKE '%img\\_%' ESCAPE '\\' ORDER BY id DESC LIMIT 20 OFFSET 80");
    for (const plan of [sample, page]) {
      expect(plan).toMatch(/Index Only Scan using images_user_status_id_name/);
      expect(plan).not.toMatch(/images_pkey/);
    }
  });
});
