import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { observeRequests, requestLog, type ObserveRequest } from '../src/http/request-observation';

type Line = Record<string, unknown> & { msg: string; level: number; raw: string; req?: Record<string, unknown>; res?: { statusCode: number | null } };

type Observation = { labels: Parameters<ObserveRequest>[0]; seconds: number };

/** An app with the middleware, a logger whose lines and the metrics' observations are kept, and a way to wait for a request's line. */
function loggedApp() {
  const lines: Line[] = [];
  const observations: Observation[] = [];
  const waiting: Array<{ id: string; msg: string; resolve: (line: Line) => void }> = [];
  const logger = pino(
    { level: 'info' },
    {
      write(text: string) {
        const line = { ...(JSON.parse(text) as Line), raw: text };
        lines.push(line);
        for (const wait of [...waiting]) {
          if (line.req?.id === wait.id && line.msg === wait.msg) {
            waiting.splice(waiting.indexOf(wait), 1);
            wait.resolve(line);
          }
        }
      },
    },
  );
  const app = express();
  app.use(observeRequests({ logger, loggedQueryNames: ['action', 'page'], observe: (labels, seconds) => observations.push({ labels, seconds }) }));
  app.get('/ok', (_req, res) => {
    res.locals.metricsRoute = 'ok';
    res.json({ ok: true });
  });
  app.get('/noted', (req, res) => {
    requestLog(req)?.warn({ detail: 'something to note' }, 'a note');
    res.json({ ok: true });
  });
  app.get('/fails', (_req, res) => {
    res.locals.metricsRoute = 'fails';
    res.status(500).json({ ok: false });
  });
  let arrived: () => void = () => {};
  const arrival = new Promise<void>((resolve) => (arrived = resolve));
  app.get('/never', () => arrived()); // never answers: the client leaves
  app.get('/healthz', (_req, res) => {
    res.locals.metricsRoute = 'healthz';
    res.json({ status: 'ok' });
  });
  const lineFor = (id: string, msg: string) =>
    new Promise<Line>((resolve) => {
      const found = lines.find((line) => line.req?.id === id && line.msg === msg);
      if (found) resolve(found);
      else waiting.push({ id, msg, resolve });
    });
  const linesOf = (id: string) => lines.filter((line) => line.req?.id === id);
  return { app, lines, observations, lineFor, linesOf, arrival };
}

let server: http.Server;
let base: string;
let subject: ReturnType<typeof loggedApp>;

beforeEach(async () => {
  subject = loggedApp();
  server = http.createServer(subject.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('when a request is answered, then one info line says so with the request, its status and time, the secrets redacted', async () => {
  const answer = await fetch(`${base}/ok?page=2&api_key=secret-key&TOKEN=secret-token`, { headers: { 'X-Request-Id': 'done-1', 'User-Agent': 'test-agent' } });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('x-request-id')).toBe('done-1');
  const line = await subject.lineFor('done-1', 'request completed');
  expect(line).toMatchObject({
    level: 30,
    req: { id: 'done-1', method: 'GET', url: '/ok?page=2&api_key=[redacted]&TOKEN=[redacted]', remoteAddress: '127.0.0.1', userAgent: 'test-agent' },
    res: { statusCode: 200 },
  });
  expect(typeof line.responseTime).toBe('number');
  expect(JSON.stringify(subject.lines)).not.toContain('secret-');
  // 'finish' and 'close' both come: still one line, and one observation each.
  await fetch(`${base}/ok`, { headers: { 'X-Request-Id': 'done-2' } });
  await subject.lineFor('done-2', 'request completed');
  expect(subject.linesOf('done-1')).toHaveLength(1);
  expect(subject.observations.map((o) => o.labels)).toEqual([
    { route: 'ok', method: 'GET', status: '200' },
    { route: 'ok', method: 'GET', status: '200' },
  ]);
  for (const { seconds } of subject.observations) {
    expect(seconds).toBeGreaterThanOrEqual(0);
    expect(seconds).toBeLessThan(60);
  }
});

test('when a query holds parameters the service does not name, under any spelling, then their values are logged as [redacted], in every line', async () => {
  // A password or a deletion link's signature is no parameter the API reads in a URL; a listed name under
  // another spelling (case, percent-encoding, brackets) is not the listed name.
  const query =
    'action=list&password=secret-password&new_password=secret-new&sig=secret-sig&Page=secret-case&%70age=secret-encoded&page[]=secret-brackets&page%5B0%5D=secret-index&page=2&flag&&callback=secret-other';
  const logged =
    'action=list&password=[redacted]&new_password=[redacted]&sig=[redacted]&Page=[redacted]&%70age=[redacted]&page[]=[redacted]&page%5B0%5D=[redacted]&page=2&flag=[redacted]&&callback=[redacted]';
  await fetch(`${base}/ok?${query}`, { headers: { 'X-Request-Id': 'listed-1' } });
  expect((await subject.lineFor('listed-1', 'request completed')).req).toMatchObject({ url: `/ok?${logged}` });
  await fetch(`${base}/noted?${query}`, { headers: { 'X-Request-Id': 'listed-2' } });
  await subject.lineFor('listed-2', 'request completed');
  expect(subject.linesOf('listed-2').map((line) => line.req?.url)).toEqual([`/noted?${logged}`, `/noted?${logged}`]);
  await fetch(`${base}/fails?${query}`, { headers: { 'X-Request-Id': 'listed-3' } });
  expect((await subject.lineFor('listed-3', 'request errored')).req).toMatchObject({ url: `/fails?${logged}` });
  expect(JSON.stringify(subject.lines)).not.toContain('secret-');
});

test('when no route names itself, then the request is counted as unmatched', async () => {
  expect((await fetch(`${base}/nowhere`, { headers: { 'X-Request-Id': 'lost-1' } })).status).toBe(404);
  await subject.lineFor('lost-1', 'request completed');
  expect(subject.observations.map((o) => o.labels)).toEqual([{ route: 'unmatched', method: 'GET', status: '404' }]);
});

test('when a request has no usable id, then a new one is made, answered and logged', async () => {
  const answer = await fetch(`${base}/ok`, { headers: { 'X-Request-Id': 'bad id with spaces' } });
  const id = answer.headers.get('x-request-id')!;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await subject.lineFor(id, 'request completed');
});

test('when the answer is a 5xx, then the line is an error', async () => {
  expect((await fetch(`${base}/fails`, { headers: { 'X-Request-Id': 'fail-1' } })).status).toBe(500);
  const line = await subject.lineFor('fail-1', 'request errored');
  expect(line).toMatchObject({ level: 50, res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
  expect(subject.linesOf('fail-1')).toHaveLength(1);
  expect(subject.observations.map((o) => o.labels)).toEqual([{ route: 'fails', method: 'GET', status: '500' }]);
});

test('when the client leaves before the answer, then the line says the request was aborted, with no status', async () => {
  const client = http.get(`${base}/never`, { headers: { 'X-Request-Id': 'gone-1' } });
  client.on('error', () => {}); // the socket is destroyed on purpose
  await subject.arrival;
  client.destroy();
  const line = await subject.lineFor('gone-1', 'request aborted');
  expect(line).toMatchObject({ level: 30, req: { id: 'gone-1', url: '/never' }, res: { statusCode: null } });
  expect(subject.linesOf('gone-1')).toHaveLength(1);
  // No answer was written: nothing to count under a status.
  expect(subject.observations).toEqual([]);
});

test('when a route logs through requestLog, then its line and the request line carry the request once each', async () => {
  await fetch(`${base}/noted?token=secret-token`, { headers: { 'X-Request-Id': 'noted-1' } });
  const done = await subject.lineFor('noted-1', 'request completed');
  const note = subject.linesOf('noted-1').find((line) => line.msg === 'a note');
  expect(note).toMatchObject({ level: 40, detail: 'something to note', req: { id: 'noted-1', url: '/noted?token=[redacted]' } });
  expect(done).toMatchObject({ req: { id: 'noted-1', url: '/noted?token=[redacted]' }, res: { statusCode: 200 } });
  expect(subject.linesOf('noted-1')).toHaveLength(2);
  for (const line of subject.linesOf('noted-1')) expect(line.raw.split('"req":')).toHaveLength(2);
});

test('when a probe is answered, then no line is written for it, but it is counted', async () => {
  await fetch(`${base}/healthz`, { headers: { 'X-Request-Id': 'probe-1' } });
  await fetch(`${base}/ok`, { headers: { 'X-Request-Id': 'after-probe' } });
  await subject.lineFor('after-probe', 'request completed');
  expect(subject.linesOf('probe-1')).toHaveLength(0);
  expect(subject.observations.map((o) => o.labels.route)).toEqual(['healthz', 'ok']);
});
