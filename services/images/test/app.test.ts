import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { ensureDemoUser } from '../src/demo';
import { createTestUser, fixture, openTestService, useTestService, userAdminFor } from './support/harness';

const logLines: Array<Record<string, unknown>> = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

const svc = useTestService({}, { logger: pino({ level: 'info' }, logStream) });
beforeEach(() => {
  logLines.length = 0;
});

test('when /healthz and /readyz are asked, then both answer 200', async () => {
  expect((await request(svc.app).get('/healthz')).body).toEqual({ status: 'ok' });
  const ready = await request(svc.app).get('/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ status: 'ok', database: 'ok', bucket: svc.config.s3 ? 'ok' : 'not_configured' });
});

test('when the database is gone, then /readyz answers 503', async () => {
  const broken = await openTestService();
  try {
    await broken.db.destroy();
    const res = await request(broken.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', database: 'down' });
  } finally {
    await broken.close().catch(() => undefined);
  }
});

test('when requests and an upload happened, then /metrics shows request counts, latency, uploads and thumbnails', async () => {
  const user = await createTestUser(svc.db);
  await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
  await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('drawing.svg'));
  const res = await request(svc.app).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  // Routes are labelled by action (as the tool directory's are), probes by name.
  expect(res.text).toMatch(/images_http_requests_total\{route="upload",method="POST",status="200"\} \d+/);
  expect(res.text).toContain('images_http_request_duration_seconds_bucket{le="0.005",route="upload",method="POST",status="200"}');
  await request(svc.app).get('/readyz');
  await request(svc.app).get('/api/image.php?action=nope');
  const after = (await request(svc.app).get('/metrics')).text;
  expect(after).toMatch(/images_http_requests_total\{route="readyz",method="GET",status="200"\} \d+/);
  expect(after).toMatch(/images_http_requests_total\{route="invalid_action",method="GET",status="200"\} \d+/);
  expect(res.text).toMatch(/images_uploads_total\{outcome="stored"\} 1\b/);
  expect(res.text).toMatch(/images_uploads_total\{outcome="rejected_type"\} 1\b/);
  expect(res.text).toMatch(/images_thumbnails_made_total \d+/);
});

test('when multer itself refuses an upload (over the group limit while streaming, a second file), then the metrics count a rejection, not a failure', async () => {
  const user = await createTestUser(svc.db);
  await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 1000 });
  const oversized = await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
  expect(oversized.body).toEqual({ code: 1, msg: '文件大小超出限制' });
  const twoFiles = await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('tiny.png')).attach('file', fixture('tiny.png'));
  expect(twoFiles.body).toEqual({ code: 1, msg: '参数错误' });
  const text = (await request(svc.app).get('/metrics')).text;
  expect(text).toMatch(/images_uploads_total\{outcome="rejected_size"\} 1\b/);
  expect(text).toMatch(/images_uploads_total\{outcome="rejected_input"\} 1\b/);
  expect(text).not.toMatch(/images_uploads_total\{outcome="failed"\}/);
  expect(Number((await svc.db('images').count({ n: '*' }).first())!.n)).toBe(0);
});

test('when X-Request-Id is sent, then it is echoed and carried by the request log line; otherwise one is generated', async () => {
  const given = await request(svc.app).get('/api/image.php?action=list').set('X-Request-Id', 'req-abc-123');
  expect(given.headers['x-request-id']).toBe('req-abc-123');
  const logged = logLines.find((line) => (line.req as { id?: string } | undefined)?.id === 'req-abc-123');
  expect(logged).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/api/image.php?action=list' }, res: { statusCode: 200 } });
  // Probes are answered but not logged: a load balancer polls them every few seconds.
  await request(svc.app).get('/healthz').set('X-Request-Id', 'probe-1');
  expect(logLines.find((line) => (line.req as { id?: string } | undefined)?.id === 'probe-1')).toBeUndefined();
  const generated = await request(svc.app).get('/healthz');
  expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
});

test('when a token is sent in the header or the query, then it never appears in the logs', async () => {
  const user = await createTestUser(svc.db);
  await request(svc.app).get(`/api/image.php?action=list&token=${user.token}`);
  await request(svc.app).get('/api/image.php?action=list').set('X-API-Token', user.token);
  // The parser decodes parameter names, so an encoded name authenticates and must be redacted too.
  const encodedName = await request(svc.app).get(`/api/image.php?action=profile&%74oken=${user.token}`);
  expect(encodedName.body.code).toBe(0);
  expect(logLines.length).toBeGreaterThanOrEqual(3);
  expect(JSON.stringify(logLines)).not.toContain(user.token);
  expect(JSON.stringify(logLines)).toContain('token=[redacted]');
  expect(JSON.stringify(logLines)).toContain('%74oken=[redacted]');
});

test.each([
  ['token', 0],
  ['%74oken', 0], // the query parser decodes names: this one authenticates
  ['TOKEN', 1],
  ['token[]', 1],
  ['token[0]', 1],
  ['token%5B%5D', 1],
])('when the token is given as ?%s=, then the answer has code %i and the log line holds no token', async (name, code) => {
  const user = await createTestUser(svc.db);
  const res = await request(svc.app).get(`/api/image.php?action=profile&${name}=${user.token}&x=1`).set('X-Request-Id', 'secret-spelling');
  expect(res.body.code).toBe(code);
  if (code === 1) expect(res.body).toEqual({ code: 1, msg: '请先登录' });
  const logged = logLines.find((line) => (line.req as { id?: string } | undefined)?.id === 'secret-spelling');
  expect((logged?.req as { url?: string }).url).toBe(`/api/image.php?action=profile&${name}=[redacted]&x=[redacted]`);
  expect(JSON.stringify(logLines)).not.toContain(user.token);
});

test('when a deletion link is opened and used, or a password is sent in the query, then no log line carries the signature or the password', async () => {
  const user = await createTestUser(svc.db);
  const uploaded = await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
  const link = new URL(uploaded.body.data.links.delete as string);
  const sig = link.searchParams.get('sig')!;
  const page = await request(svc.app).get(`${link.pathname}${link.search}`).set('X-Request-Id', 'deletion-page');
  expect(page.status).toBe(200);
  const deleted = await request(svc.app).post(`${link.pathname}${link.search}`).set('X-Request-Id', 'deletion-post');
  expect(deleted.text).toContain('图片已移入回收站');
  expect((await svc.db('images').where({ id: uploaded.body.data.id }).first()).status).toBe('binned');
  // Passwords never travel in a URL: refused, and not logged either.
  const signIn = await request(svc.app).post('/api/image.php?action=login&username=alice&password=hunter2-in-url').set('X-Request-Id', 'password-in-url');
  expect(signIn.body).toEqual({ code: 1, msg: '请输入用户名和密码' });
  await request(svc.app)
    .post('/api/image.php?action=change_password&password=old-in-url&new_password=new-in-url')
    .set('X-API-Token', user.token)
    .set('X-Request-Id', 'new-password-in-url');

  const urlOf = (id: string) => (logLines.find((line) => (line.req as { id?: string } | undefined)?.id === id)?.req as { url?: string } | undefined)?.url;
  for (const id of ['deletion-page', 'deletion-post']) {
    expect(urlOf(id)).toMatch(new RegExp(`^/api/delete\\.php\\?id=${uploaded.body.data.id}&`));
    expect(urlOf(id)).toContain('sig=[redacted]');
  }
  expect(urlOf('password-in-url')).toBe('/api/image.php?action=login&username=[redacted]&password=[redacted]');
  expect(urlOf('new-password-in-url')).toBe('/api/image.php?action=change_password&password=[redacted]&new_password=[redacted]');
  const logged = JSON.stringify(logLines);
  for (const secret of [sig, 'hunter2-in-url', 'old-in-url', 'new-in-url']) expect(logged).not.toContain(secret);
});

test('when a browser preflights the API, then any origin is allowed', async () => {
  const preflight = await request(svc.app)
    .options('/api/image.php?action=upload')
    .set('Origin', 'https://example.org')
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'X-API-Token, Idempotency-Key');
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('*');
  expect(preflight.headers['access-control-allow-headers']).toContain('X-API-Token');
  const plain = await request(svc.app).get('/api/image.php?action=list').set('Origin', 'https://example.org');
  expect(plain.headers['access-control-allow-origin']).toBe('*');
});

test('when an unexpected fault happens, then HTTP 500 with the generic envelope, no SQL to the client, full log', async () => {
  const user = await createTestUser(svc.db);
  await svc.db.raw('ALTER TABLE images RENAME TO images_moved');
  try {
    // A keyword search reads the images table itself (a plain list's total comes from image_counts).
    const res = await request(svc.app).get('/api/image.php?action=list&keyword=photo').set('X-API-Token', user.token);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 1, msg: '服务器内部错误' });
    expect(res.text).not.toMatch(/images|select|relation/i);
    expect(logLines.some((line) => line.level === 50 && JSON.stringify(line.err ?? '').includes('images'))).toBe(true);
  } finally {
    await svc.db.raw('ALTER TABLE images_moved RENAME TO images');
  }
});

test('when rows are deleted, then knex resolves to the number deleted (knex-pglite once resolved to a raw result object)', async () => {
  const user = await createTestUser(svc.db);
  expect(await svc.db('credentials').where({ user_id: user.id }).delete()).toBe(1);
  expect(await svc.db('credentials').where({ user_id: user.id }).delete()).toBe(0);
});

test('when an unknown path is requested, then 404 with the envelope', async () => {
  const res = await request(svc.app).get('/nope');
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ code: 1, msg: '不支持的操作' });
});

test('when ensureDemoUser runs twice, then it returns a working token once and null after', async () => {
  const token = await ensureDemoUser(userAdminFor(svc.db));
  expect(token).toEqual(expect.any(String));
  expect((await request(svc.app).get('/api/image.php?action=profile').set('X-API-Token', token!)).body.data).toMatchObject({ username: 'demo', group: 'default' });
  expect(await ensureDemoUser(userAdminFor(svc.db))).toBeNull();
});

test('when the API answers (a token shown, a list, an upload, a refusal), then no cache may keep it and it carries no entity tag; a thumbnail is kept for a day and has one', async () => {
  const user = await createTestUser(svc.db, 'alice', undefined, { password: 'password-123' });
  const session = (await request(svc.app).post('/api/image.php?action=login').type('form').send({ username: 'alice', password: 'password-123' })).body.data.token as string;
  const uploaded = await request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
  const answers = {
    upload: uploaded,
    token: await request(svc.app).get('/api/image.php?action=token').set('X-API-Token', session),
    list: await request(svc.app).get('/api/image.php?action=list').set('X-API-Token', user.token),
    refused: await request(svc.app).get('/api/image.php?action=list').set('X-API-Token', 'not-a-token'),
    unknownAction: await request(svc.app).get('/api/image.php?action=nope'),
    badJson: await request(svc.app).post('/api/image.php?action=delete').set('Content-Type', 'application/json').send('{"id":'),
  };
  expect(Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, [res.body.code, res.headers['cache-control'], res.headers.etag]]))).toEqual({
    upload: [0, 'no-store', undefined],
    token: [0, 'no-store', undefined],
    list: [0, 'no-store', undefined],
    refused: [1, 'no-store', undefined],
    unknownAction: [1, 'no-store', undefined],
    badJson: [1, 'no-store', undefined],
  });
  const thumb = await request(svc.app).get(new URL(uploaded.body.data.thumb_url).pathname + new URL(uploaded.body.data.thumb_url).search);
  expect([thumb.status, thumb.headers['cache-control']]).toEqual([200, 'public, max-age=86400']);
  // The store's tag: weak size-mtime for a file, the object's quoted digest for a bucket.
  expect(thumb.headers.etag).toMatch(/^(W\/)?"[0-9a-f-]+"$/);
});
