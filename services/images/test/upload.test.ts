import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import pino from 'pino';
import sharp from 'sharp';
import request from 'supertest';
import type { ObjectStore } from '../src/storage/object-store';
import {
  MIB,
  createTestUser,
  distinctBytes,
  filesIn,
  storedKeys,
  fixture,
  fixtureBytes,
  imageRows,
  openTestService,
  useTestService,
  publicBytes,
  usedBytes,
  userAdminFor,
  withCurrentStore,
} from './support/harness';

const svc = useTestService();

const UPLOAD = '/api/image.php?action=upload';
const thumbPath = (thumbUrl: string) => thumbUrl.replace('http://img.test', '');

async function fetchThumb(thumbUrl: string) {
  return request(svc.app).get(thumbPath(thumbUrl)).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
}

/** The state a refused upload must leave: no row, no file anywhere, nothing charged. */
async function expectNothingStored(userId: number) {
  expect(await imageRows(svc.db)).toEqual([]);
  expect(await storedKeys(svc, 'public')).toEqual([]);
  expect(await storedKeys(svc, 'thumbs')).toEqual([]);
  expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
  expect(await usedBytes(svc.db, userId)).toBe(0);
}

describe('accepted images', () => {
  // `asUploaded`: stored byte for byte. The phone photo loses its EXIF camera fields (privacy.test.ts
  // covers that in depth); the TIFF is stored as a PNG rendition browsers can show.
  const cases = [
    { file: 'phone-orientation6.jpg', ext: 'jpg', width: 1200, height: 1600, thumb: [300, 400], asUploaded: false },
    { file: 'alpha.png', ext: 'png', width: 640, height: 480, thumb: [400, 300], asUploaded: true },
    { file: 'animated.gif', ext: 'gif', width: 320, height: 240, thumb: [320, 240], asUploaded: true },
    { file: 'photo.webp', ext: 'webp', width: 800, height: 600, thumb: [400, 300], asUploaded: true },
    { file: 'photo.avif', ext: 'avif', width: 500, height: 300, thumb: [400, 240], asUploaded: true },
    { file: 'photo.tiff', ext: 'png', width: 300, height: 200, thumb: [300, 200], asUploaded: false },
  ] as const;

  test.each(cases)('when $file is uploaded, then it is stored with its displayed size and a WebP thumbnail', async (c) => {
    const user = await createTestUser(svc.db);
    const uploaded = fixtureBytes(c.file);

    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture(c.file));

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 0,
      msg: '上传成功',
      data: {
        id: 1,
        url: expect.stringMatching(new RegExp(`^http://img\\.test/i/\\d{4}/\\d{2}/\\d{2}/[0-9a-f]{32}\\.${c.ext}$`)),
        thumb_url: expect.stringMatching(/^http:\/\/img\.test\/api\/thumb\.php\?id=1&sig=[\w-]{32}$/),
        original_name: c.file,
        file_size: expect.any(Number),
        width: c.width,
        height: c.height,
        links: expect.objectContaining({ url: res.body.data.url, thumbnail: res.body.data.thumb_url }),
      },
    });
    const stored = (await publicBytes(svc, res.body.data.url))!;
    expect(stored.equals(uploaded)).toBe(c.asUploaded);
    expect(res.body.data.file_size).toBe(stored.length);
    expect(await storedKeys(svc, 'public')).toHaveLength(1);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(stored.length);

    const thumb = await fetchThumb(res.body.data.thumb_url);
    expect(thumb.status).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    expect(thumb.headers['x-content-type-options']).toBe('nosniff');
    const meta = await sharp(thumb.body as Buffer).metadata();
    expect(meta.format).toBe('webp');
    expect([meta.width, meta.height]).toEqual(c.thumb);
    expect(meta.pages ?? 1).toBe(1);
    expect(await storedKeys(svc, 'thumbs')).toHaveLength(1);
  });

  test('when the phone JPEG is thumbnailed, then the thumbnail is upright (EXIF orientation applied)', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('phone-orientation6.jpg'));
    const thumb = await fetchThumb(res.body.data.thumb_url);
    const meta = await sharp(thumb.body as Buffer).metadata();
    expect(meta.width).toBeLessThan(meta.height!);
    expect(meta.orientation ?? 1).toBe(1);
  });

  test('when the PNG has alpha, then its thumbnail keeps the alpha channel', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('alpha.png'));
    const meta = await sharp((await fetchThumb(res.body.data.thumb_url)).body as Buffer).metadata();
    expect(meta.hasAlpha).toBe(true);
  });

  test('when the original is smaller than a thumbnail would be, then the original serves as the thumbnail', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('tiny.gif'));
    expect(res.body.data).toMatchObject({ width: 24, height: 24, file_size: fixtureBytes('tiny.gif').length });
    const thumb = await fetchThumb(res.body.data.thumb_url);
    expect(thumb.status).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/gif');
    expect((thumb.body as Buffer).equals(fixtureBytes('tiny.gif'))).toBe(true);
    expect(await storedKeys(svc, 'thumbs')).toEqual([]);
  });

  test('when a small image still has a smaller WebP form, then the WebP thumbnail is kept', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
    const thumb = await fetchThumb(res.body.data.thumb_url);
    expect(thumb.headers['content-type']).toBe('image/webp');
    expect((thumb.body as Buffer).length).toBeLessThan(fixtureBytes('tiny.png').length);
    expect(await storedKeys(svc, 'thumbs')).toHaveLength(1);
  });

  test('when the file name is Chinese or carries a path, then original_name is the bare name and the stored name is random', async () => {
    const user = await createTestUser(svc.db);
    const chinese = await request(svc.app)
      .post(UPLOAD)
      .set('X-API-Token', user.token)
      .attach('file', fixtureBytes('tiny.png'), { filename: '我的照片.png', contentType: 'image/png' });
    expect(chinese.body.data.original_name).toBe('我的照片.png');
    const withPath = await request(svc.app)
      .post(UPLOAD)
      .set('X-API-Token', user.token)
      .attach('file', distinctBytes('tiny.png'), { filename: '../../etc/passwd', contentType: 'image/png' });
    expect(withPath.body.data.original_name).toBe('passwd');
    expect(withPath.body.data.url).toMatch(/\/[0-9a-f]{32}\.png$/);
    expect(await storedKeys(svc, 'public')).toHaveLength(2);
  });

  test('when the client claims a wrong MIME type and extension, then the type comes from the bytes', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app)
      .post(UPLOAD)
      .set('X-API-Token', user.token)
      .attach('file', fixtureBytes('photo.webp'), { filename: 'holiday.jpg', contentType: 'image/jpeg' });
    expect(res.body.code).toBe(0);
    expect(res.body.data.url).toMatch(/\.webp$/);
    expect(res.body.data.original_name).toBe('holiday.jpg');
  });
});

describe('token', () => {
  test('when the token is in the query, then the upload is accepted', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(`${UPLOAD}&token=${user.token}`).attach('file', fixture('tiny.png'));
    expect(res.body.code).toBe(0);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
  });

  test('when the token is a multipart field before the file, then the upload is accepted', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).field('token', user.token).attach('file', fixture('tiny.png'));
    expect(res.body.code).toBe(0);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
  });

  test('when the token is a multipart field after the file, then 请先登录: the file part came before any credential, and nothing is stored', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).attach('file', fixture('tiny.png')).field('token', user.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg: '请先登录' });
    await expectNothingStored(user.id);
  });

  test.each([
    ['no credential', ''],
    ['a wrong body token before the file', 'token=wrong'],
  ])('when an upload of MAX_UPLOAD_BYTES comes with %s, then 请先登录 arrives long before the body is sent, and nothing reaches tmp/', async (_name, field) => {
    const user = await createTestUser(svc.db);
    const { port } = svc.server.address() as net.AddressInfo;
    const boundary = 'b0undary';
    const fieldPart = field ? `--${boundary}\r\nContent-Disposition: form-data; name="${field.split('=')[0]}"\r\n\r\n${field.split('=')[1]}\r\n` : '';
    const head = Buffer.from(`${fieldPart}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const total = svc.config.maxUploadBytes;
    const fileBytes = total - head.length - tail.length;

    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const answered = new Promise<void>((resolve) => socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('}')) resolve();
    }));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    let over = false;
    void Promise.race([answered, closed]).then(() => (over = true));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST ${UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${total}\r\n\r\n`);
    socket.write(head);
    // The file goes out as fast as the service takes it, until it answers or closes the connection.
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    let sent = 0;
    while (!over && sent < fileBytes) {
      const piece = chunk.subarray(0, Math.min(chunk.length, fileBytes - sent));
      sent += piece.length;
      if (!socket.write(piece)) await new Promise((resolve) => {
        socket.once('drain', resolve);
        void Promise.race([answered, closed]).then(resolve);
      });
    }
    if (sent === fileBytes) socket.write(tail);
    await answered;
    // The client has its answer and gives up the upload (the service, reading no more of it, leaves that to the client).
    socket.destroy();
    await closed;

    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 1, msg: '请先登录' });
    // What the client managed to send before the answer bounds what the service read: a small part of the body.
    expect(sent).toBeLessThan(total / 4);
    await expectNothingStored(user.id);
  });

  test('when an upload is refused unread and its client sends the rest of the body anyway, then the same keep-alive connection answers the next request', async () => {
    const user = await createTestUser(svc.db);
    const { port } = svc.server.address() as net.AddressInfo;
    const boundary = 'b0undary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`),
      Buffer.alloc(3 * 1024 * 1024, 0x41),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const waiters: Array<() => void> = [];
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      for (const check of [...waiters]) check();
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    /** The n-th answer's body, once it is complete; fails if the connection closes first. */
    const answer = (n: number) =>
      new Promise<unknown>((resolve, reject) => {
        const check = () => {
          const bodies = received.split(/HTTP\/1\.1 /).slice(1).map((one) => one.slice(one.indexOf('\r\n\r\n') + 4));
          const done = bodies[n - 1];
          if (done === undefined || !done.endsWith('}')) return;
          waiters.splice(waiters.indexOf(check), 1);
          resolve(JSON.parse(done));
        };
        waiters.push(check);
        check();
        void closed.then(() => reject(new Error(`the connection closed after: ${received.slice(0, 300)}`)));
      });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST ${UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body);
    expect(await answer(1)).toEqual({ code: 1, msg: '请先登录' });
    socket.write(`GET /api/image.php?action=list HTTP/1.1\r\nHost: x\r\nX-API-Token: ${user.token}\r\n\r\n`);
    expect(await answer(2)).toMatchObject({ code: 0, data: { total: 0 } });
    socket.destroy();
    await closed;
    await expectNothingStored(user.id);
  });

  test('when the body token comes before the file, then the file is cut off at the group limit while streaming, as with a header token: a retry of a stored upload after the limit was lowered below its size gets 文件大小超出限制', async () => {
    const user = await createTestUser(svc.db, 'carol', undefined, { password: 'password-123' });
    // The first upload with another credential of the user (a session).
    const session = (await request(svc.app).post('/api/image.php?action=login').type('form').send({ username: 'carol', password: 'password-123' })).body.data.token;
    const first = await request(svc.app).post(UPLOAD).set('X-API-Token', session).set('Idempotency-Key', 'k1').attach('file', fixture('photo.webp'));
    expect(first.body.code).toBe(0);
    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 1000 });

    const retry = await request(svc.app).post(UPLOAD).set('Idempotency-Key', 'k1').field('token', user.token).attach('file', fixture('photo.webp'));
    expect(retry.body).toEqual({ code: 1, msg: '文件大小超出限制' });
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
  });

  test.each([
    ['no token', (r: request.Test) => r],
    ['a wrong header token', (r: request.Test) => r.set('X-API-Token', 'wrong')],
    ['a wrong body token', (r: request.Test) => r.field('token', 'wrong')],
  ])('when the upload carries %s, then 请先登录 and nothing is stored', async (_name, withToken) => {
    const user = await createTestUser(svc.db);
    const res = await withToken(request(svc.app).post(UPLOAD)).attach('file', fixture('tiny.png'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg: '请先登录' });
    await expectNothingStored(user.id);
  });

  test('when the header token is wrong but the query token is right, then there is no fallback: 请先登录', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(`${UPLOAD}&token=${user.token}`).set('X-API-Token', 'wrong').attach('file', fixture('tiny.png'));
    expect(res.body).toEqual({ code: 1, msg: '请先登录' });
    await expectNothingStored(user.id);
  });

  test('when the query token is repeated, then it is present but wrong: 请先登录, with no fallback to the body token', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(`${UPLOAD}&token=x&token=y`).field('token', user.token).attach('file', fixture('tiny.png'));
    expect(res.body).toEqual({ code: 1, msg: '请先登录' });
    await expectNothingStored(user.id);
  });

  test('when an upload with a wrong token is refused before its body arrives, then the answer waits for the body, so the client can send it all and read 请先登录', async () => {
    const logLines: string[] = [];
    let onRefusal: () => void = () => undefined;
    const refused = new Promise<void>((resolve) => (onRefusal = resolve));
    const logger = pino({ level: 'debug' }, { write: (line: string) => {
      logLines.push(line);
      if (line.includes('request refused before its body arrived')) onRefusal();
    } });
    const own = await openTestService({}, { logger });
    try {
      const user = await createTestUser(own.db);
      const { port } = own.server.address() as net.AddressInfo;
      const boundary = 'b0undary';
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
        fixtureBytes('alpha.png'),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const socket = net.connect(port, '127.0.0.1');
      let answer = '';
      const answered = new Promise<void>((resolve) => socket.on('data', (chunk) => {
        answer += chunk.toString('utf8');
        if (answer.includes('}')) resolve();
      }));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST ${UPLOAD} HTTP/1.1\r\nHost: x\r\nX-API-Token: wrong\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body.subarray(0, 1000));
      // The service has refused the token and is reading the rest: nothing has been answered yet.
      await refused;
      expect(answer).toBe('');
      const rest = await new Promise<Error | null | undefined>((resolve) => socket.write(body.subarray(1000), resolve));
      expect(rest ?? null).toBeNull();
      await answered;
      socket.end();
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 1, msg: '请先登录' });
      expect(await imageRows(own.db)).toEqual([]);
      expect(filesIn(own.storageDir, 'tmp')).toEqual([]);
      expect(await usedBytes(own.db, user.id)).toBe(0);
    } finally {
      await own.close();
    }
  });

  test('when a token is reset, then the old one stops working', async () => {
    const user = await createTestUser(svc.db);
    const { token: fresh } = await userAdminFor(svc.db).resetToken(user.id);
    const old = await request(svc.app).get('/api/image.php?action=list').set('X-API-Token', user.token);
    expect(old.body).toEqual({ code: 1, msg: '请先登录' });
    const now = await request(svc.app).get('/api/image.php?action=list').set('X-API-Token', fresh);
    expect(now.body.code).toBe(0);
  });

  test('when a token is stored, then the database holds its SHA-256 digest and a sealed copy, never the token itself', async () => {
    const user = await createTestUser(svc.db);
    const row = await svc.db('credentials').where({ user_id: user.id, kind: 'account' }).first('token_hash', 'token_ciphertext');
    expect(row.token_hash).toBe(createHash('sha256').update(user.token).digest('hex'));
    expect(row.token_ciphertext).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.stringify(await svc.db('credentials').select('*'))).not.toContain(user.token);
  });
});

describe('bad input', () => {
  test.each([
    ['no file field', (r: request.Test) => r.field('category_id', '1'), '请选择要上传的文件'],
    ['a wrong field name', (r: request.Test) => r.attach('image', fixture('tiny.png')), '请选择要上传的文件'],
    ['an empty file', (r: request.Test) => r.attach('file', Buffer.alloc(0), 'empty.jpg'), '文件为空（0 字节），请选择有内容的图片'],
    ['a JSON body', (r: request.Test) => r.send({ file: 'abc' }), '请选择要上传的文件'],
    ['a urlencoded body', (r: request.Test) => r.type('form').send('file=abc'), '请选择要上传的文件'],
    ['two files', (r: request.Test) => r.attach('file', fixture('tiny.png')).attach('file', fixture('tiny.png')), '参数错误'],
    [
      'a malformed multipart body',
      (r: request.Test) =>
        r
          .set('Content-Type', 'multipart/form-data; boundary=XyZ')
          .send('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG partial'),
      '请求格式错误',
    ],
    ['a multipart body without boundary', (r: request.Test) => r.set('Content-Type', 'multipart/form-data').send('abc'), '请求格式错误'],
    ['an SVG', (r: request.Test) => r.attach('file', fixture('drawing.svg')), '不支持的文件类型'],
    ['an SVG named .png', (r: request.Test) => r.attach('file', fixtureBytes('drawing.svg'), { filename: 'x.png', contentType: 'image/png' }), '不支持的文件类型'],
    ['a text file renamed .jpg', (r: request.Test) => r.attach('file', fixture('notes-really-text.jpg')), '不支持的文件类型'],
    ['a truncated JPEG', (r: request.Test) => r.attach('file', fixture('truncated.jpg')), '图片文件已损坏'],
    ['a 100-megapixel PNG', (r: request.Test) => r.attach('file', fixture('huge-100mp.png')), '图片尺寸超出限制'],
    ['category_id=abc', (r: request.Test) => r.field('category_id', 'abc').attach('file', fixture('tiny.png')), '参数错误'],
    ['category_id=-1', (r: request.Test) => r.field('category_id', '-1').attach('file', fixture('tiny.png')), '参数错误'],
  ])('when the upload has %s, then it is refused with its message and changes nothing', async (_name, build, msg) => {
    const user = await createTestUser(svc.db);
    const res = await build(request(svc.app).post(UPLOAD).set('X-API-Token', user.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 1, msg });
    await expectNothingStored(user.id);
  });

  test('when upload is called with GET, then 不支持的操作', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).get(UPLOAD).set('X-API-Token', user.token);
    expect(res.body).toEqual({ code: 1, msg: '不支持的操作' });
  });
});

describe('group limits and quota', () => {
  test('when the file is over the group max_file_size (header token), then 文件大小超出限制 and nothing is stored', async () => {
    const user = await createTestUser(svc.db);
    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 100_000 });
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('phone-orientation6.jpg'));
    expect(res.body).toEqual({ code: 1, msg: '文件大小超出限制' });
    await expectNothingStored(user.id);
  });

  test('when the file is over the group max_file_size (body token), then 文件大小超出限制 and nothing is stored', async () => {
    const user = await createTestUser(svc.db);
    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 100_000 });
    const res = await request(svc.app).post(UPLOAD).field('token', user.token).attach('file', fixture('phone-orientation6.jpg'));
    expect(res.body).toEqual({ code: 1, msg: '文件大小超出限制' });
    await expectNothingStored(user.id);
  });

  test('when the file is over MAX_UPLOAD_BYTES, then multer stops it: 文件大小超出限制 and nothing is left behind', async () => {
    const capped = await openTestService({ MAX_UPLOAD_BYTES: '150000' });
    try {
      const user = await createTestUser(capped.db);
      for (const send of [
        () => request(capped.app).post(UPLOAD).field('token', user.token).attach('file', fixture('phone-orientation6.jpg')),
        () => request(capped.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('phone-orientation6.jpg')),
      ]) {
        const res = await send();
        expect(res.body).toEqual({ code: 1, msg: '文件大小超出限制' });
      }
      expect(await imageRows(capped.db)).toEqual([]);
      expect(filesIn(capped.storageDir, 'tmp')).toEqual([]);
      expect(await storedKeys(capped, 'public')).toEqual([]);
      expect(await usedBytes(capped.db, user.id)).toBe(0);
    } finally {
      await capped.close();
    }
  });

  test('when the file is exactly max_file_size, then it is accepted', async () => {
    const user = await createTestUser(svc.db);
    const size = fixtureBytes('photo.webp').length;
    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: size });
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
    expect(res.body.code).toBe(0);
  });

  test('when the user moves to the vip group, then its larger limit applies', async () => {
    const user = await createTestUser(svc.db);
    await svc.db('groups').where({ name: 'default' }).update({ max_file_size: 100_000 });
    const vip = await svc.db('groups').where({ name: 'vip' }).first('id');
    await svc.db('users').where({ id: user.id }).update({ group_id: vip.id });
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('phone-orientation6.jpg'));
    expect(res.body.code).toBe(0);
  });

  test('when the quota is used up, then 存储空间不足 and the used bytes stay the sum of stored files', async () => {
    const user = await createTestUser(svc.db);
    const size = fixtureBytes('tiny.png').length;
    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: size * 2 + 10 });
    for (let i = 0; i < 2; i += 1) {
      const ok = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png');
      expect(ok.body.code).toBe(0);
    }
    const refused = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png');
    expect(refused.body).toEqual({ code: 1, msg: '存储空间不足' });
    expect(await imageRows(svc.db, user.id)).toHaveLength(2);
    expect(await storedKeys(svc, 'public')).toHaveLength(2);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(size * 2);
  });

  test('when uploads race on PGlite too, then the quota is never overshot', async () => {
    const user = await createTestUser(svc.db);
    const size = fixtureBytes('tiny.png').length;
    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: size * 3 });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png')),
    );
    expect(results.filter((r) => r.body.code === 0)).toHaveLength(3);
    expect(results.filter((r) => r.body.msg === '存储空间不足')).toHaveLength(5);
    expect(await usedBytes(svc.db, user.id)).toBe(size * 3);
    expect(await storedKeys(svc, 'public')).toHaveLength(3);
  });
});

describe('where an upload is received: memory or tmp/', () => {
  /**
   * An app over the test service whose store holds every write of an upload's objects until
   * `release()` (before any of it reaches tmp/), noting which way each original came: putBytes
   * (received into memory) or putFile (a file in tmp/).
   */
  async function holdingOriginals(uploadMemoryBytes: number) {
    const { createApp } = await import('../src/app');
    const { createMediaProcessor } = await import('../src/media/media-processor');
    const { createMetrics } = await import('../src/metrics/metrics');
    const store = svc.storage.current;
    const originals: string[] = [];
    const waiters: Array<() => void> = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = async (area: string, way: string): Promise<void> => {
      if (area === 'public') originals.push(way);
      for (const wake of waiters.splice(0)) wake();
      await released;
    };
    const holding: ObjectStore = {
      ...store,
      async putFile(...args: Parameters<ObjectStore['putFile']>): Promise<void> {
        await hold(args[0], 'putFile');
        await store.putFile(...args);
      },
      async putBytes(...args: Parameters<ObjectStore['putBytes']>): Promise<void> {
        await hold(args[0], 'putBytes');
        await store.putBytes(...args);
      },
    };
    const config = { ...svc.config, uploadMemoryBytes };
    const app = createApp({ config, db: svc.db, storage: withCurrentStore(svc.storage, holding), media: createMediaProcessor(), metrics: createMetrics(), logger: pino({ level: 'silent' }) });
    /** Settles once `count` originals have reached the store. */
    const reached = async (count: number): Promise<void> => {
      while (originals.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    return { app, originals, reached, release };
  }

  const send = (app: Parameters<typeof request>[0], token: string, file: string) =>
    request(app).post(UPLOAD).set('X-API-Token', token).attach('file', file).then((res) => res);

  test('when memory is free, then a photo is received into memory (nothing in tmp/ as it is stored); with UPLOAD_MEMORY_BYTES=0 through tmp/; both store the same bytes', async () => {
    const stored: Buffer[] = [];
    const users: number[] = [];
    for (const [memory, way, tempFiles] of [
      [64 * MIB, 'putBytes', 0],
      [0, 'putFile', 2], // the received file, and its copy without metadata, which the store then moves into place
    ] as const) {
      // A user each: the same photo again from one user would be answered with the image already stored.
      const user = await createTestUser(svc.db);
      users.push(user.id);
      const held = await holdingOriginals(memory);
      const answer = send(held.app, user.token, fixture('private-phone.jpg'));
      try {
        await held.reached(1);
        expect(filesIn(svc.storageDir, 'tmp')).toHaveLength(tempFiles);
      } finally {
        held.release();
      }
      const res = await answer;
      expect(res.body).toMatchObject({ code: 0, msg: '上传成功' });
      expect(held.originals).toEqual([way]);
      stored.push((await publicBytes(svc, res.body.data.url))!);
      expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    }
    // Stripped of its metadata the same way, byte for byte.
    expect(stored[0]!.length).toBeLessThan(fixtureBytes('private-phone.jpg').length);
    expect(stored[0]!.equals(stored[1]!)).toBe(true);
    for (const id of users) expect(await usedBytes(svc.db, id)).toBe(stored[0]!.length);
  });

  test('when uploads in flight hold the memory, then the next one streams into tmp/; once they are done, memory is used again', async () => {
    const user = await createTestUser(svc.db);
    // Room for one request's body (the photo and its multipart framing), not two.
    const held = await holdingOriginals(fixtureBytes('photo.webp').length + 4096);
    const first = send(held.app, user.token, fixture('photo.webp'));
    await held.reached(1);
    const second = send(held.app, user.token, fixture('photo.webp'));
    try {
      await held.reached(2);
      expect(held.originals).toEqual(['putBytes', 'putFile']);
      expect(filesIn(svc.storageDir, 'tmp')).toHaveLength(1); // the second's body; the first's is in memory
    } finally {
      held.release();
    }
    expect((await first).body).toMatchObject({ code: 0 });
    expect((await second).body).toMatchObject({ code: 0 });
    // Another picture: the photo again would be answered with the image already stored, storing nothing.
    expect((await send(held.app, user.token, fixture('photo.avif'))).body).toMatchObject({ code: 0 });
    expect(held.originals).toEqual(['putBytes', 'putFile', 'putBytes']);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    // The two photos were one content: the second, stored second, answered the first's image and gave its files and charge back.
    expect((await first).body.data.id).toBe((await second).body.data.id);
    const rows = await imageRows(svc.db, user.id);
    expect(rows).toHaveLength(2);
    expect(await usedBytes(svc.db, user.id)).toBe(fixtureBytes('photo.webp').length + Number(rows[1]!.file_size));
  });

  test('when a body is over 8 MiB, then it streams into tmp/ however much memory is free', async () => {
    const user = await createTestUser(svc.db);
    // Noise does not compress: a 1800×1700 PNG of it is over 9 MB.
    const noise = Buffer.alloc(1800 * 1700 * 3);
    for (let i = 0; i < noise.length; i += 1) noise[i] = (i * 2654435761) >>> 24;
    const big = path.join(svc.storageDir, 'noise.png');
    await sharp(noise, { raw: { width: 1800, height: 1700, channels: 3 } }).png({ compressionLevel: 0 }).toFile(big);
    try {
      expect(fs.statSync(big).size).toBeGreaterThan(8 * MIB);
      const held = await holdingOriginals(64 * MIB);
      const answer = send(held.app, user.token, big);
      try {
        await held.reached(1);
      } finally {
        held.release();
      }
      expect((await answer).body).toMatchObject({ code: 0, msg: '上传成功' });
      expect(held.originals).toEqual(['putFile']);
      expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    } finally {
      fs.rmSync(big, { force: true });
    }
  }, 30000);
});

describe('streaming', () => {
  test('when a 160 MB upload arrives, then it streams to disk: memory stays far below the file size', async () => {
    const big = await openTestService({ MAX_UPLOAD_BYTES: String(200 * MIB) });
    const bigFile = path.join(big.storageDir, 'big-upload.jpg');
    try {
      const user = await createTestUser(big.db, 'big');
      await big.db('groups').where({ name: 'default' }).update({ max_file_size: 200 * MIB });
      const chunk = Buffer.alloc(MIB, 0x5a);
      const handle = fs.openSync(bigFile, 'w');
      fs.writeSync(handle, Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
      for (let i = 0; i < 160; i += 1) fs.writeSync(handle, chunk);
      fs.closeSync(handle);

      // What the upload holds, not the garbage its stream chunks leave until the next collection (how much
      // of that piles up differs between Node versions: 143 MB on Node 24 here). A full collection is slow
      // on a busy machine, so a sample collects only when it sees more than the limit: garbage then goes,
      // what the upload holds stays.
      v8.setFlagsFromString('--expose-gc');
      const collect = vm.runInNewContext('gc') as () => void;
      const memory = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
      const limit = 80 * MIB;
      collect();
      const baseline = memory();
      let peak = 0;
      const sample = () => {
        if (memory() - baseline >= limit) collect();
        peak = Math.max(peak, memory() - baseline);
      };
      // Every 200 ms: a buffered upload's chunks are held for the whole upload, so a sample finds them.
      const sampler = setInterval(sample, 200);
      sampler.unref();
      try {
        const res = await request(big.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', bigFile);
        // The bytes say JPEG but do not decode: refused after being received in full.
        expect(res.body).toEqual({ code: 1, msg: '图片文件已损坏' });
      } finally {
        clearInterval(sampler);
      }
      // A buffered upload would hold ≥ 160 MB.
      expect(peak).toBeLessThan(limit);
      expect(await imageRows(big.db)).toEqual([]);
      expect(filesIn(big.storageDir, 'tmp')).toEqual([]);
      expect(await usedBytes(big.db, user.id)).toBe(0);
    } finally {
      await big.close();
    }
  }, 60000);
});

describe('categories on upload', () => {
  test('when category_id is omitted, then the image goes to the default category', async () => {
    const user = await createTestUser(svc.db);
    await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('tiny.png'));
    const [row] = await imageRows(svc.db, user.id);
    const category = await svc.db('categories').where({ id: row!.category_id }).first();
    expect(category).toMatchObject({ is_default: true, name: '默认分类' });
  });

  test("when category_id is the user's own, then the image goes there", async () => {
    const user = await createTestUser(svc.db);
    const made = await request(svc.app).post('/api/image.php?action=create_category').set('X-API-Token', user.token).type('form').send({ name: '旅行' });
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).field('category_id', String(made.body.data.id)).attach('file', fixture('tiny.png'));
    expect(res.body.code).toBe(0);
    const [row] = await imageRows(svc.db, user.id);
    expect(Number(row!.category_id)).toBe(made.body.data.id);
  });

  test("when category_id belongs to another user or does not exist, then 分类不存在 and nothing is stored", async () => {
    const owner = await createTestUser(svc.db);
    const user = await createTestUser(svc.db);
    const others = await svc.db('categories').where({ user_id: owner.id }).first('id');
    for (const categoryId of [String(others.id), '99999']) {
      const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).field('category_id', categoryId).attach('file', fixture('tiny.png'));
      expect(res.body).toEqual({ code: 1, msg: '分类不存在' });
    }
    await expectNothingStored(user.id);
  });
});

describe('Idempotency-Key', () => {
  test('when an upload is retried with the same key, then the first result comes back and nothing new is stored', async () => {
    const user = await createTestUser(svc.db);
    const send = () => request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'retry-1').attach('file', fixture('photo.webp'));
    const first = await send();
    const second = await send();
    expect(first.body.code).toBe(0);
    expect(second.body).toEqual(first.body);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
    expect(await storedKeys(svc, 'public')).toHaveLength(1);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(fixtureBytes('photo.webp').length);
  });

  test('when an upload is retried after its image went to the bin and was restored, then the retry answers that image again, with its links as they are now, and stores nothing', async () => {
    const user = await createTestUser(svc.db);
    const send = () => request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'after-restore').attach('file', fixture('tiny.png'));
    const first = (await send()).body;
    expect(first.code).toBe(0);
    const act = (action: string) => request(svc.app).post(`/api/image.php?action=${action}`).set('X-API-Token', user.token).send({ id: first.data.id });
    expect((await act('delete')).body.code).toBe(0);
    expect((await send()).body).toEqual(first);
    expect((await act('restore')).body.code).toBe(0);

    const retried = (await send()).body;
    const listed = (await request(svc.app).get('/api/image.php?action=list&links=1').set('X-API-Token', user.token)).body.data.list;
    expect(retried).toEqual({ ...first, data: { ...first.data, links: listed[0].links } });
    expect(retried.data.links).not.toEqual(first.data.links);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
  });

  test('when duplicates with one key arrive concurrently, then exactly one image is created and all get its result', async () => {
    const user = await createTestUser(svc.db);
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'same').attach('file', fixture('photo.webp')),
      ),
    );
    expect(new Set(results.map((r) => r.body.data?.id))).toEqual(new Set([1]));
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
    expect(await storedKeys(svc, 'public')).toHaveLength(1);
    expect(await usedBytes(svc.db, user.id)).toBe(fixtureBytes('photo.webp').length);
  });

  test('when the stored upload filled the quota and is retried with its key, then the first result comes back, not 存储空间不足', async () => {
    const user = await createTestUser(svc.db);
    const size = fixtureBytes('photo.webp').length;
    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: size });
    const send = () => request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'fills-quota').attach('file', fixture('photo.webp'));
    const first = await send();
    expect(first.body.code).toBe(0);
    const retried = await send();
    expect(retried.body).toEqual(first.body);
    expect(Object.keys(retried.body.data)).toEqual(['id', 'url', 'thumb_url', 'original_name', 'file_size', 'width', 'height', 'links']);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
    expect(await storedKeys(svc, 'public')).toHaveLength(1);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(size);
  });

  test('when the first attempt failed, then a retry with the same key is processed afresh', async () => {
    const user = await createTestUser(svc.db);
    const failed = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'k').attach('file', fixture('drawing.svg'));
    expect(failed.body).toEqual({ code: 1, msg: '不支持的文件类型' });
    const retried = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'k').attach('file', fixture('tiny.png'));
    expect(retried.body.code).toBe(0);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
  });

  test('when a claim was left behind by a request that died, then a retry takes it over after 10 minutes', async () => {
    const user = await createTestUser(svc.db);
    await svc.db('idempotency_keys').insert({ user_id: user.id, key: 'orphan', created_at: new Date(Date.now() - 11 * 60 * 1000) });
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'orphan').attach('file', fixture('tiny.png'));
    expect(res.body.code).toBe(0);
    expect(await imageRows(svc.db, user.id)).toHaveLength(1);
    const claim = await svc.db('idempotency_keys').where({ user_id: user.id, key: 'orphan' }).first();
    expect(Number(claim.image_id)).toBe(res.body.data.id);
  });

  test('when two users use the same key, then each gets their own image', async () => {
    const a = await createTestUser(svc.db);
    const b = await createTestUser(svc.db);
    const ra = await request(svc.app).post(UPLOAD).set('X-API-Token', a.token).set('Idempotency-Key', 'k').attach('file', fixture('tiny.png'));
    const rb = await request(svc.app).post(UPLOAD).set('X-API-Token', b.token).set('Idempotency-Key', 'k').attach('file', fixture('tiny.png'));
    expect(ra.body.data.id).not.toBe(rb.body.data.id);
    expect(await imageRows(svc.db)).toHaveLength(2);
  });

  test('when the key is not printable ASCII or too long, then 参数错误 and nothing is stored', async () => {
    const user = await createTestUser(svc.db);
    const res = await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).set('Idempotency-Key', 'x'.repeat(256)).attach('file', fixture('tiny.png'));
    expect(res.body).toEqual({ code: 1, msg: '参数错误' });
    await expectNothingStored(user.id);
  });
});

test('when several uploads land the same day, then files sit under YYYY/MM/DD/ with random 128-bit names', async () => {
  const user = await createTestUser(svc.db);
  for (let i = 0; i < 3; i += 1) await request(svc.app).post(UPLOAD).set('X-API-Token', user.token).attach('file', distinctBytes('tiny.png'), 'tiny.png');
  const files = await storedKeys(svc, 'public');
  expect(files).toHaveLength(3);
  for (const file of files) expect(file).toMatch(/^\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.png$/);
  expect(new Set(files.map((f) => path.basename(f))).size).toBe(3);
});

describe('a failing disk (EIO)', () => {
  // An upload received into tmp/ (UPLOAD_MEMORY_BYTES=0) is stored by putFile, one received into
  // memory by putBytes; the thumbnail always by putBytes.
  const RECEIVED_IN = { 'tmp/': 0, memory: 64 * 1024 * 1024 } as const;

  test.each([
    ['putFile', 'tmp/', ['putFile public']],
    ['putBytes', 'tmp/', ['putBytes thumbs']],
    ['putBytes', 'memory', ['putBytes public', 'putBytes thumbs']],
  ] as const)('when the store\'s %s fails with EIO (the upload received in %s), then HTTP 500 (the server, not the request), logged at error with its cause, and nothing is kept', async (step, receivedIn, failedCalls) => {
    const { createApp } = await import('../src/app');
    const { createMediaProcessor } = await import('../src/media/media-processor');
    const { createMetrics } = await import('../src/metrics/metrics');
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const store = svc.storage.current;
    const calls: string[] = [];
    const failing: ObjectStore = {
      ...store,
      async [step](area: string): Promise<void> {
        calls.push(`${step} ${area}`);
        throw Object.assign(new Error(`EIO: i/o error, ${step}`), { code: 'EIO', errno: -5, syscall: 'write' });
      },
    };
    const storage = withCurrentStore(svc.storage, failing);
    const config = { ...svc.config, uploadMemoryBytes: RECEIVED_IN[receivedIn] };
    const app = createApp({ config, db: svc.db, storage, media: createMediaProcessor(), metrics: createMetrics(), logger });
    const user = await createTestUser(svc.db);

    // alpha.png gets a WebP thumbnail, so both writes happen.
    const res = await request(app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('alpha.png'));

    expect([res.status, res.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
    expect(calls).toEqual(failedCalls);
    const logged = lines.find((line) => line.level === 50 && line.msg === 'unexpected fault');
    expect(logged?.err).toMatchObject({ code: 'EIO' });
    expect(await imageRows(svc.db)).toEqual([]);
    expect(await storedKeys(svc, 'public')).toEqual([]);
    expect(await storedKeys(svc, 'thumbs')).toEqual([]);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(0);
  });

  test.each(Object.keys(RECEIVED_IN) as Array<keyof typeof RECEIVED_IN>)('when the original (received in %s) fails while the thumbnail is still being written, then the cleanup waits for that write, and nothing is kept', async (receivedIn) => {
    const { createApp } = await import('../src/app');
    const { createMediaProcessor } = await import('../src/media/media-processor');
    const { createMetrics } = await import('../src/metrics/metrics');
    const store = svc.storage.current;
    const events: string[] = [];
    let thumbnailStarted!: () => void;
    const thumbnailWriting = new Promise<void>((resolve) => (thumbnailStarted = resolve));
    let releaseThumbnail!: () => void;
    const thumbnailReleased = new Promise<void>((resolve) => (releaseThumbnail = resolve));
    const originalFails = async (): Promise<void> => {
      events.push('original failed');
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', errno: -5, syscall: 'write' });
    };
    // Both writes start at once: the original's fails at once, the thumbnail's is held until released.
    const failing: ObjectStore = {
      ...store,
      putFile: originalFails,
      async putBytes(...args: Parameters<ObjectStore['putBytes']>): Promise<void> {
        if (args[0] === 'public') return originalFails();
        thumbnailStarted();
        await thumbnailReleased;
        await store.putBytes(...args);
        events.push('thumbnail written');
      },
      async remove(...args: Parameters<ObjectStore['remove']>): Promise<void> {
        events.push('remove');
        await store.remove(...args);
      },
    };
    const storage = withCurrentStore(svc.storage, failing);
    const config = { ...svc.config, uploadMemoryBytes: RECEIVED_IN[receivedIn] };
    const app = createApp({ config, db: svc.db, storage, media: createMediaProcessor(), metrics: createMetrics(), logger: pino({ level: 'silent' }) });
    const user = await createTestUser(svc.db);

    const answer = request(app).post(UPLOAD).set('X-API-Token', user.token).attach('file', fixture('alpha.png')).then((res) => res);
    await thumbnailWriting;
    // The original's failure has been seen (every promise step after it has run), yet nothing is
    // removed while the thumbnail's write may still put its file in place.
    await new Promise(setImmediate);
    expect(events).toEqual(['original failed']);
    releaseThumbnail();
    const res = await answer;

    expect([res.status, res.body]).toEqual([500, { code: 1, msg: '服务器内部错误' }]);
    expect(events.slice(0, 3)).toEqual(['original failed', 'thumbnail written', 'remove']);
    expect(await imageRows(svc.db)).toEqual([]);
    expect(await storedKeys(svc, 'public')).toEqual([]);
    expect(await storedKeys(svc, 'thumbs')).toEqual([]);
    expect(filesIn(svc.storageDir, 'tmp')).toEqual([]);
    expect(await usedBytes(svc.db, user.id)).toBe(0);
  });
});
