import express from 'express';
import request from 'supertest';
import { fail, ok, sendEnvelope, type FailureEnvelope, type SuccessEnvelope } from '../src/http/envelope';

// sendEnvelope must answer exactly what Express's res.json would: the same bytes, type and length.
const envelopes: Array<[string, SuccessEnvelope<unknown> | FailureEnvelope]> = [
  ['a success with data', ok('成功', { list: [{ id: 1, original_name: 'beach.jpg', url: 'http://img.test/i/a.jpg' }], total: 1, page: 1, limit: 20 })],
  ['data with Chinese, emoji, quotes and line separators', ok('上传成功', { original_name: '海边 "sunset" 🌅\u2028\u2029\\.png', n: null, flag: false })],
  ['a success without data', ok('删除成功')],
  ['data that is an empty list', ok('成功', [])],
  ['data that is a string', ok('成功', 'text')],
  ['a failure', fail('请先登录')],
];

function twinApp(envelope: SuccessEnvelope<unknown> | FailureEnvelope) {
  const app = express();
  app.set('etag', false);
  app.all('/json', (_req, res) => {
    res.status(envelope.code === 0 ? 200 : 507).json(envelope);
  });
  app.all('/send', (_req, res) => sendEnvelope(res.status(envelope.code === 0 ? 200 : 507), envelope));
  return app;
}

test.each(envelopes)('when %s is sent, then the bytes, status, type and length are res.json\'s', async (_name, envelope) => {
  const app = twinApp(envelope);
  const expected = await request(app).get('/json');
  const actual = await request(app).get('/send');
  expect(actual.status).toBe(expected.status);
  expect(actual.text).toBe(expected.text);
  expect(actual.text).toBe(JSON.stringify(envelope));
  expect(actual.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(actual.headers['content-type']).toBe(expected.headers['content-type']);
  expect(actual.headers['content-length']).toBe(String(Buffer.byteLength(actual.text)));
  expect(actual.headers['content-length']).toBe(expected.headers['content-length']);

  const head = await request(app).head('/send');
  expect(head.headers['content-length']).toBe(expected.headers['content-length']);
  expect(head.text).toBeUndefined();
});
