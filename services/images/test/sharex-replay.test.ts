import path from 'node:path';
import request from 'supertest';
import { createTestUser, fixtureBytes, useTestService, userAdminFor } from './support/harness';

// ShareX as it runs an imported .sxcu: the request it builds, and what it shows the user.

const API = '/api/image.php';
const svc = useTestService();

interface Sxcu {
  DestinationType: string;
  RequestMethod: string;
  RequestURL: string;
  Headers: Record<string, string>;
  Body: string;
  FileFormName: string;
  URL: string;
  ErrorMessage: string;
}

/** `{json:a.b}` resolved against a JSON answer, as ShareX's custom uploader syntax does. */
function resolveJson(template: string, text: string): string {
  const jsonPath = /^\{json:([\w.]+)\}$/.exec(template)![1]!;
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return '';
  }
  const value = jsonPath.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], answer);
  return value === undefined || value === null ? '' : String(value);
}

/**
 * ShareX's multipart request (UploadersLib: a boundary of dashes and the clock's ticks in hex, the
 * file part named FileFormName with the file's name and the MIME type of its extension, its User-Agent),
 * and what it then shows: on a 2xx answer the URL template (an empty one is "URL is empty"); on any
 * other status the ErrorMessage template resolved against the body.
 */
async function shareXUpload(sxcu: Sxcu, fileName: string, bytes: Buffer, mimeType: string): Promise<{ status: number; shown: string; body: string }> {
  const boundary = `--------------------${(BigInt(Date.now()) * 10_000n + 621_355_968_000_000_000n).toString(16)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${sxcu.FileFormName}"; filename="${fileName}"\r\nContent-Type: ${mimeType}\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const url = new URL(sxcu.RequestURL);
  const answer = await request(svc.app)
    .post(url.pathname + url.search)
    .set(sxcu.Headers)
    .set('User-Agent', 'ShareX/17.0.0')
    .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
    .send(body)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
  const text = answer.body as string;
  const ok = answer.status >= 200 && answer.status < 300;
  const shown = ok ? resolveJson(sxcu.URL, text) || 'URL is empty' : resolveJson(sxcu.ErrorMessage, text);
  return { status: answer.status, shown, body: text };
}

async function downloadSxcu(groupName?: string): Promise<Sxcu> {
  await createTestUser(svc.db, 'alice', groupName, { password: 'password-123' });
  const login = await request(svc.app).post(`${API}?action=login`).type('form').send({ username: 'alice', password: 'password-123' });
  const res = await request(svc.app).post(`${API}?action=client_config`).set('X-API-Token', login.body.data.token).send({ client: 'sharex' });
  return JSON.parse(res.text) as Sxcu;
}

describe('ShareX with the generated .sxcu', () => {
  test('when the config is generated, then it declares images only, opts into refusal statuses and reads msg on failure', async () => {
    const sxcu = await downloadSxcu();
    expect(sxcu).toMatchObject({
      DestinationType: 'ImageUploader',
      RequestMethod: 'POST',
      RequestURL: 'http://img.test/api/image.php?action=upload&http_errors=1',
      Body: 'MultipartFormData',
      FileFormName: 'file',
      URL: '{json:data.url}',
      ErrorMessage: '{json:msg}',
    });
  });

  test('when a screenshot is sent, then ShareX shows the stored URL', async () => {
    const sxcu = await downloadSxcu();
    const sent = await shareXUpload(sxcu, 'Screenshot 2026-11-27.png', fixtureBytes('tiny.png'), 'image/png');
    expect(sent.status).toBe(200);
    expect(sent.shown).toMatch(/^http:\/\/img\.test\/i\/\d{4}\/\d{2}\/\d{2}\/[0-9a-f]{32}\.png$/);
  });

  test('when the file is over the group limit, then ShareX shows 文件大小超出限制 (HTTP 413) and nothing is stored', async () => {
    await userAdminFor(svc.db).createGroup({ name: 'tiny', maxFileSize: 100, quotaBytes: 10 * 1024 * 1024 });
    const sxcu = await downloadSxcu('tiny');
    const sent = await shareXUpload(sxcu, 'photo.webp', fixtureBytes('photo.webp'), 'image/webp');
    expect({ status: sent.status, shown: sent.shown, body: JSON.parse(sent.body) }).toEqual({
      status: 413,
      shown: '文件大小超出限制',
      body: { code: 1, msg: '文件大小超出限制' },
    });
    expect(Number((await svc.db('images').count({ n: '*' }).first())!.n)).toBe(0);
  });

  test('when the quota is used up, then ShareX shows 存储空间不足 (HTTP 403)', async () => {
    const photo = fixtureBytes('photo.webp');
    await userAdminFor(svc.db).createGroup({ name: 'small', maxFileSize: photo.length, quotaBytes: photo.length + 10 });
    const sxcu = await downloadSxcu('small');
    expect((await shareXUpload(sxcu, 'first.webp', photo, 'image/webp')).status).toBe(200);
    // Another picture: the same one again would be answered with the image already stored (deduplication).
    const sent = await shareXUpload(sxcu, 'second.webp', fixtureBytes('private.webp'), 'image/webp');
    expect({ status: sent.status, shown: sent.shown }).toEqual({ status: 403, shown: '存储空间不足' });
  });

  test('when a file that is not an image or a revoked token is sent, then ShareX shows why', async () => {
    const sxcu = await downloadSxcu();
    const svg = await shareXUpload(sxcu, 'drawing.svg', fixtureBytes('drawing.svg'), 'image/svg+xml');
    expect({ status: svg.status, shown: svg.shown }).toEqual({ status: 415, shown: '不支持的文件类型' });
    const revoked = await shareXUpload({ ...sxcu, Headers: { 'X-API-Token': 'x'.repeat(43) } }, 'a.png', fixtureBytes('tiny.png'), 'image/png');
    expect({ status: revoked.status, shown: revoked.shown }).toEqual({ status: 401, shown: '请先登录' });
  });

  test('when a client does not opt in, then the same refusal is HTTP 200 with the same envelope (the contract)', async () => {
    const sxcu = await downloadSxcu();
    const plain = { ...sxcu, RequestURL: sxcu.RequestURL.replace('&http_errors=1', '') };
    const sent = await shareXUpload(plain, path.basename('drawing.svg'), fixtureBytes('drawing.svg'), 'image/svg+xml');
    expect({ status: sent.status, body: JSON.parse(sent.body), shown: sent.shown }).toEqual({
      status: 200,
      body: { code: 1, msg: '不支持的文件类型' },
      // What ShareX showed before the opt-in: the refusal never reached the user.
      shown: 'URL is empty',
    });
  });
});
