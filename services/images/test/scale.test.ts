import request from 'supertest';
import { describeWithRealServer } from '@platform/kit/testing';
import { createListingRepository } from '../src/images/listing-repository';
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
    await insertMany(other.id, otherCategory.id, 10_000, 'b');
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

  test('when the older of two users lists pages, then Postgres reads those pages\' rows, not the newer user\'s rows before them', async () => {
    // The neighbour's 10,000 images are newer than all of heavy's: a walk of the primary key, newest
    // first, passes every one of them before heavy's first row (the planner prices heavy's rows as spread
    // evenly through the table). The page walks heavy's own index instead.
    const user = await svc.db('users').where({ name: 'heavy' }).first('id');
    const credential = await svc.db('credentials').where({ user_id: user.id }).first('id');
    const category = await svc.db('categories').where({ user_id: user.id, is_default: true }).first('id');
    await svc.db.transaction(async (trx) => {
      const listing = createListingRepository(trx, { namedStatements: true });
      // Index entries this transaction has read from any of the images table's indexes.
      const entriesRead = async () =>
        Number((await trx.raw("SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid)) AS n FROM pg_index WHERE indrelid = 'images'::regclass")).rows[0].n);
      for (const [page, categoryId] of [[1, undefined], [2, undefined], [3, undefined], [4, undefined], [5, undefined], [6, undefined], [50, undefined], [1, category.id], [3, category.id]] as const) {
        const before = await entriesRead();
        const offset = (page - 1) * 20;
        const found = (await listing.list({ userId: user.id, credential: { id: credential.id, at: new Date() }, status: 'stored', categoryId, limit: 20, offset }))!;
        expect(found.rows).toHaveLength(20);
        expect(found.total).toBe(98_000);
        // The walk to the page and the page's rows read again for their columns, not the neighbour's 10,000.
        expect((await entriesRead()) - before).toBeLessThanOrEqual(offset + 2 * 20 + 10);
      }
      // One plan for every page: nothing in the statement depends on the user's share of the rows.
      const { rows } = await trx.raw("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'images_page_stored'");
      expect(Number(rows[0].generic_plans)).toBeGreaterThan(0);
    });
  });

  test('when a word is searched for a user whose images are older than another user\'s, then Postgres walks that user\'s own index, not the primary key through the other\'s rows', async () => {
    const user = await svc.db('users').where({ name: 'heavy' }).first('id');
    const planOf = async (sql: string, bindings: Array<string | number>) => {
      const plan = await svc.db.raw(`EXPLAIN ${sql}`, bindings);
      return plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    };
    // The two walks of a search (src/images/listing-repository.ts), its values given as the statement
    // gives them (subquery results, which the planner does not look into): the newest names it
    // samples, and a common word's page.
    const sample = await planOf(
      "SELECT lower(original_name) AS name FROM images WHERE user_id = (SELECT ?::bigint) AND status = 'stored' ORDER BY id DESC LIMIT 1000",
      [user.id],
    );
    const page = await planOf(
      "SELECT id FROM images WHERE user_id = (SELECT ?::bigint) AND status = 'stored' AND (lower(original_name) LIKE (SELECT lower(?))) IS TRUE ORDER BY id DESC LIMIT (SELECT 20::bigint) OFFSET (SELECT 80::bigint)",
      [user.id, '%img\\_%'],
    );
    for (const plan of [sample, page]) {
      expect(plan).toMatch(/Index Only Scan using images_user_status_id_name/);
      expect(plan).not.toMatch(/images_pkey/);
    }
  });

  test('when common, rare and absent words are searched on one connection, then Postgres keeps one plan for them all and the answers stay right', async () => {
    const user = await svc.db('users').where({ name: 'heavy' }).first('id');
    const credential = await svc.db('credentials').where({ user_id: user.id }).first('id');
    await svc.db.transaction(async (trx) => {
      const listing = createListingRepository(trx, { namedStatements: true });
      const search = (keyword: string, page: number) =>
        listing.list({ userId: user.id, credential: { id: credential.id, at: new Date() }, status: 'stored', keyword, limit: 20, offset: (page - 1) * 20 });
      const answers: Array<{ keyword: string; total: number; estimated: boolean; first: string | undefined }> = [];
      for (let round = 0; round < 4; round++) {
        for (const keyword of ['img', 'sunset', 'zebra']) {
          const found = (await search(keyword, round + 1))!;
          answers.push({ keyword, total: found.total, estimated: found.totalEstimated === true, first: found.rows[0]?.originalName });
        }
      }
      // Rare: counted exactly (every 1,000th name, none of them binned); absent: none; common: estimated.
      expect(answers.filter((a) => a.keyword === 'sunset').map((a) => [a.total, a.estimated])).toEqual(Array(4).fill([100, false]));
      expect(answers.filter((a) => a.keyword === 'zebra').map((a) => a.total)).toEqual([0, 0, 0, 0]);
      expect(answers.filter((a) => a.keyword === 'img').every((a) => a.estimated && a.total === 98_000)).toBe(true);
      // Newest first, page after page: pages 1–4 start at the 1st, 21st, 41st and 61st newest match.
      expect(answers.filter((a) => a.keyword === 'sunset').map((a) => a.first)).toEqual(['IMG_100000_sunset.jpg', 'IMG_080000_sunset.jpg', 'IMG_060000_sunset.jpg', 'IMG_040000_sunset.jpg']);
      const { rows } = await trx.raw("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'images_search_stored'");
      expect(Number(rows[0].generic_plans)).toBeGreaterThan(0);
      expect(Number(rows[0].custom_plans)).toBeLessThanOrEqual(5);
    });
  });

  test('when a rare keyword has no trigram, then its names are walked, not read from the whole trigram index, and counted exactly', async () => {
    const user = await svc.db('users').where({ name: 'heavy' }).first('id');
    const credential = await svc.db('credentials').where({ user_id: user.id }).first('id');
    await svc.db.transaction(async (trx) => {
      const listing = createListingRepository(trx, { namedStatements: true });
      const search = (keyword: string) => listing.list({ userId: user.id, credential: { id: credential.id, at: new Date() }, status: 'stored', keyword, limit: 20, offset: 0 });
      // This transaction's scans of the trigram index so far.
      const trigramScans = async () =>
        Number((await trx.raw("SELECT pg_stat_get_xact_numscans('images_original_name_trgm'::regclass) AS n")).rows[0].n);
      const before = await trigramScans();
      // "ns": two letters, in the 100 names with "sunset" only.
      for (let run = 0; run < 8; run++) {
        const found = (await search('ns'))!;
        expect([found.total, found.totalEstimated, found.rows[0]?.originalName]).toEqual([100, undefined, 'IMG_100000_sunset.jpg']);
      }
      expect(await trigramScans()).toBe(before);
      await search('sunset');
      expect(await trigramScans()).toBeGreaterThan(before);
    });
  });
});
