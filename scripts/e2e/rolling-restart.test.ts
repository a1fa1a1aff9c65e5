/**
 * A rolling restart as an operator does one: every replica of both services replaced one after
 * another (SIGTERM, wait for the exit, start, wait for /readyz), with no pause between them, while
 * uploads, image lists and tool searches run through the real nginx. Not one request may fail.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import net from 'node:net';
import sharp from 'sharp';
import { buildServices, runAdmin, startPlatform, stopProcess, whenFileShows, type Platform, type Replica } from './platform';
import { realServices } from './real-services';

const real = realServices();
const describeReal = real ? describe : describe.skip;

interface Outcome {
  kind: 'upload' | 'list' | 'tools';
  ok: boolean;
  detail: string;
}

/** A small PNG of its own colour: every upload is a different file. */
function distinctImage(n: number): Promise<Buffer> {
  return sharp({ create: { width: 8, height: 8, channels: 3, background: { r: n % 256, g: (n >> 8) % 256, b: (n >> 16) % 256 } } })
    .png()
    .toBuffer();
}

describeReal('rolling restart through nginx (two replicas of each service)', () => {
  let platform: Platform;
  let token: string;

  beforeAll(async () => {
    buildServices();
    platform = await startPlatform(real!, {
      replicas: 2,
      clientMaxBodySize: '2m',
      // Thousands of anonymous searches in a minute: the hourly limit is not what this test is about.
      env: { tools: { ANONYMOUS_RATE_LIMIT_PER_HOUR: '1000000' } },
    });
    const created = runAdmin('images', platform.env.images, ['create-user', 'rolling']);
    token = /^token \(store it now; the user also sees it in the account area\): (\S+)$/m.exec(created)![1]!;
    runAdmin('tools', platform.env.tools, ['import', 'services/tools/data/sample-tools.json']);
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
  });

  test('when every replica of both services is replaced one after another under uploads, lists and searches, then no request fails and each upload is stored once', async () => {
    const outcomes: Outcome[] = [];
    let stopping = false;
    let uploadNumber = 0;
    let onOutcome: (() => void) | undefined;
    const record = (outcome: Outcome) => {
      outcomes.push(outcome);
      onOutcome?.();
    };
    const attempt = async (kind: Outcome['kind'], send: () => Promise<Response>, succeeded: (body: any) => boolean) => {
      try {
        const res = await send();
        const text = await res.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        record({ kind, ok: res.status === 200 && succeeded(body), detail: `${res.status} ${res.headers.get('x-request-id')} ${text.slice(0, 200)}` });
      } catch (error) {
        record({ kind, ok: false, detail: String((error as Error).cause ?? error) });
      }
    };
    // Uploads carry an Idempotency-Key, as the web app's do: only those may be passed to the other
    // replica after reaching one (proxy/nginx.conf.template). One without a key that meets a replica
    // in the instant its port closes gets a 502 (docs/operating.md, "Rolling restarts").
    const upload = async () => {
      const form = new FormData();
      const n = ++uploadNumber;
      form.append('file', new Blob([new Uint8Array(await distinctImage(n))], { type: 'image/png' }), `rolling-${n}.png`);
      const headers = { 'X-API-Token': token, 'Idempotency-Key': randomUUID() };
      await attempt('upload', () => fetch(`${platform.baseUrl}/api/image.php?action=upload`, { method: 'POST', body: form, headers }), (body) => body?.code === 0);
    };
    const loop = async (step: () => Promise<void>) => {
      while (!stopping) await step();
    };
    const load = [
      loop(upload),
      loop(upload),
      loop(upload),
      ...Array.from({ length: 4 }, () =>
        loop(() => attempt('list', () => fetch(`${platform.baseUrl}/api/image.php?action=list&limit=20`, { headers: { 'X-API-Token': token } }), (body) => body?.code === 0)),
      ),
      ...Array.from({ length: 4 }, () =>
        loop(() => attempt('tools', () => fetch(`${platform.baseUrl}/api/index.php?action=search&q=${randomBytes(2).toString('hex')}`), (body) => body?.success === true)),
      ),
    ];
    /** Resolves once `count` more outcomes are recorded than now: the load is flowing. */
    const afterMore = (count: number) => {
      const target = outcomes.length + count;
      return new Promise<void>((resolve) => {
        onOutcome = () => {
          if (outcomes.length >= target) resolve();
        };
      });
    };

    const exitCodes = new Map<string, number | null>();
    const drained: Replica[] = [];
    try {
      await afterMore(50);
      for (const replica of [...platform.images, ...platform.tools]) {
        const leaving = replica.output;
        exitCodes.set(replica.name, await platform.restartReplica(replica, { stopWith: 'SIGTERM' }));
        if (/draining/.test(leaving.join(''))) drained.push(replica);
      }
      // The last replaced replicas take their share of the load again.
      await afterMore(50);
    } finally {
      stopping = true;
      await Promise.all(load);
    }

    const failures = outcomes.filter((outcome) => !outcome.ok);
    const count = (kind: Outcome['kind']) => outcomes.filter((outcome) => outcome.kind === kind).length;
    expect({ failures: failures.map((f) => `${f.kind}: ${f.detail}`), uploads: count('upload') > 0, lists: count('list') > 0, searches: count('tools') > 0 }).toEqual({
      failures: [],
      uploads: true,
      lists: true,
      searches: true,
    });
    // Every replica left cleanly after its drain window.
    expect(Object.fromEntries(exitCodes)).toEqual({ 'images-1': 0, 'images-2': 0, 'tools-1': 0, 'tools-2': 0 });
    expect(drained.map((replica) => replica.name)).toEqual(['images-1', 'images-2', 'tools-1', 'tools-2']);
    // Each upload answered is stored once: one passed to the other replica was not stored twice.
    const listed = await fetch(`${platform.baseUrl}/api/image.php?action=list&limit=1`, { headers: { 'X-API-Token': token } });
    const { data } = (await listed.json()) as { data: { total: number } };
    expect(data.total).toBe(count('upload'));
  }, 300_000);

  test('when an upload reaches a replica that resets the connection without answering, then with an Idempotency-Key nginx passes it to the other and it is stored once; without one it answers 502', async () => {
    const [resetting, living] = platform.images as [Replica, Replica];
    let sent = 0;
    const upload = async (name: string, headers: Record<string, string>) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await distinctImage(1_000_000 + (sent += 1)))], { type: 'image/png' }), name);
      const res = await fetch(`${platform.baseUrl}/api/image.php?action=upload`, { method: 'POST', body: form, headers: { 'X-API-Token': token, ...headers } });
      return { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id')! };
    };
    const total = async () => {
      const res = await fetch(`${platform.baseUrl}/api/image.php?action=list&limit=1`, { headers: { 'X-API-Token': token } });
      return ((await res.json()) as { data: { total: number } }).data.total;
    };
    const before = await total();
    // In the replica's place: a server that reads a request whole and resets the connection, as a
    // replica that dies after receiving an upload (or closes its port with the connection still queued).
    await stopProcess(resetting.process, 'SIGKILL');
    let received = 0;
    const resetter = net.createServer((socket) => {
      let request = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        request = Buffer.concat([request, chunk]);
        // The multipart body's closing boundary: the request is in whole.
        if (request.subarray(-4).toString() === '--\r\n') {
          received++;
          socket.resetAndDestroy();
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => resetter.listen(resetting.port, '127.0.0.1', resolve));
    try {
      // Round robin alternates: of two uploads, one goes to the resetting server first.
      const keyed = [await upload('keyed-1.png', { 'Idempotency-Key': randomUUID() }), await upload('keyed-2.png', { 'Idempotency-Key': randomUUID() })];
      expect(keyed.map((answer) => ({ status: answer.status, code: answer.body.code }))).toEqual([
        { status: 200, code: 0 },
        { status: 200, code: 0 },
      ]);
      expect(received).toBe(1);
      const entries = await whenFileShows(
        platform.accessLogFile,
        () => {
          const lines = platform.accessLog().map((line) => JSON.parse(line) as { request_id: string; upstream: string; upstream_status: string });
          const found = keyed.map((answer) => lines.find((line) => line.request_id === answer.requestId));
          return found.every(Boolean) && found;
        },
        () => 'the keyed uploads in the access log',
      );
      expect(entries.map((entry) => entry!.upstream_status).sort()).toEqual(['200', '502, 200']);
      expect(entries.map((entry) => entry!.upstream).sort()).toEqual([`127.0.0.1:${living.port}`, `127.0.0.1:${resetting.port}, 127.0.0.1:${living.port}`].sort());
      expect(await total()).toBe(before + 2);

      // Without a key, the upload that meets the resetting server is not sent again. (nginx keeps the
      // server out of rotation for 1-2 s after its failure above: uploads go to the other until then.)
      const plain: { status: number; body: unknown; requestId: string }[] = [];
      while (received < 2 && plain.length < 500) plain.push(await upload(`plain-${plain.length}.png`, {}));
      const refused = plain.filter((answer) => answer.status !== 200);
      expect(refused).toEqual([{ status: 502, body: { code: 1, msg: '服务暂时不可用，请稍后重试' }, requestId: expect.any(String) }]);
      expect(received).toBe(2);
      expect(await total()).toBe(before + 2 + plain.length - 1);
    } finally {
      await new Promise((resolve) => resetter.close(resolve));
      await platform.restartReplica(resetting);
    }
  }, 120_000);
});
