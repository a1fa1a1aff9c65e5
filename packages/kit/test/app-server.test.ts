import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import express, { type Request, type Response } from 'express';
import { createAppServer } from '../src/http/app-server';

// V8's own check of two objects' hidden classes, compiled after the flag that allows it.
v8.setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** Serves `app` through createAppServer on a loopback port until `close()`. */
async function serve(app: express.Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = createAppServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One GET on a kept-alive connection, its status, headers and body. */
function get(url: string, agent: http.Agent, headers: http.OutgoingHttpHeaders = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

test("when a request reaches the app through its server, then its request and response already have the app's prototypes, and Express's helpers answer as usual", async () => {
  const app = express();
  app.get('/echo', (req, res) => {
    res.set('X-Echo', String(req.get('x-probe')));
    res.status(201).json({
      query: req.query,
      path: req.path,
      requestHasAppPrototype: Object.getPrototypeOf(req) === app.request,
      responseHasAppPrototype: Object.getPrototypeOf(res) === app.response,
      appReachable: req.app === app && res.app === app,
    });
  });
  const server = await serve(app);
  const agent = new http.Agent({ keepAlive: true });
  try {
    const answer = await get(`${server.url}/echo?page=2&q=a%20b`, agent, { 'X-Probe': 'seen' });
    expect(answer.status).toBe(201);
    expect(answer.headers['x-echo']).toBe('seen');
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.body)).toEqual({
      query: { page: '2', q: 'a b' },
      path: '/echo',
      requestHasAppPrototype: true,
      responseHasAppPrototype: true,
      appReachable: true,
    });
    const missing = await get(`${server.url}/nowhere`, agent);
    expect(missing.status).toBe(404);
  } finally {
    agent.destroy();
    await server.close();
  }
});

test('when requests arrive together, then they share one hidden class, and so do their responses (none has a map of its own)', async () => {
  const app = express();
  // Each round holds two requests in the handler, so that both are compared at the same point.
  const held: Array<{ req: Request; res: Response }> = [];
  const rounds: Array<{ req: boolean; res: boolean }> = [];
  app.get('/', (req, res) => {
    held.push({ req, res });
    if (held.length < 2) return;
    const [first, second] = held.splice(0, 2) as [{ req: Request; res: Response }, { req: Request; res: Response }];
    rounds.push({ req: haveSameMap(first.req, second.req), res: haveSameMap(first.res, second.res) });
    first.res.end('ok');
    second.res.end('ok');
  });
  const server = await serve(app);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  try {
    for (let i = 0; i < 15; i++) {
      const answers = await Promise.all([get(`${server.url}/`, agent), get(`${server.url}/`, agent)]);
      expect(answers.map((answer) => answer.body)).toEqual(['ok', 'ok']);
    }
  } finally {
    agent.destroy();
    await server.close();
  }
  expect(rounds).toHaveLength(15);
  // The first rounds may differ while V8 settles a class's instance size (over its first instances).
  expect(rounds.slice(10)).toEqual(Array.from({ length: 5 }, () => ({ req: true, res: true })));
});
