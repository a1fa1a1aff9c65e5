// Readiness includes the bucket: a replica whose store hangs or refuses says so on /readyz at once
// (HeadBucket within 2 s), and every failed store operation is counted for Prometheus.
import net from 'node:net';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../src/app';
import { createMediaProcessor } from '../src/media/media-processor';
import { createMetrics } from '../src/metrics/metrics';
import { createStorage } from '../src/storage/storage';
import { openTestService, type TestService } from './support/harness';
import { createTestBucket, describeWithS3 } from './support/s3-server';

/** A TCP server that accepts connections and never answers: a store that hangs. */
async function hungServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A loopback port nothing listens on: a store that is down. */
async function refusingUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describeWithS3('readiness and the bucket', () => {
  let svc: TestService;
  beforeAll(async () => {
    const bucket = await createTestBucket();
    svc = await openTestService({ ...bucket.env, STORAGE_BACKEND: 's3' }, { bucket });
  });
  afterAll(async () => svc?.close());

  /** The app on this test's database, its bucket settings pointed at `endpoint` (opened without the start's HeadBucket). */
  function appWithBucketAt(endpoint: string) {
    const config = { ...svc.config, s3: { ...svc.config.s3!, endpoint } };
    const metrics = createMetrics();
    const storage = createStorage({ backend: 's3', storageDir: svc.storageDir, timeZone: config.timeZone, s3: config.s3 }, { countError: metrics.countStorageError });
    const app = createApp({ config, db: svc.db, storage, media: createMediaProcessor(), metrics, logger: pino({ level: 'silent' }) });
    return { app, close: () => storage.close() };
  }

  test('when the bucket answers, then /readyz is 200 with bucket ok', async () => {
    const ready = await request(svc.app).get('/readyz');
    expect([ready.status, ready.body]).toEqual([200, { status: 'ok', database: 'ok', bucket: 'ok' }]);
  });

  test('when the bucket accepts connections but never answers, then /readyz answers 503 bucket down within seconds, and the failure is counted', async () => {
    const hung = await hungServer();
    const service = appWithBucketAt(hung.url);
    try {
      const started = Date.now();
      const ready = await request(service.app).get('/readyz');
      const elapsedMs = Date.now() - started;
      expect([ready.status, ready.body]).toEqual([503, { status: 'unavailable', database: 'ok', bucket: 'down' }]);
      // The probe gives the bucket 2 s; the margin is for a busy machine, far under a proxy's 60 s.
      expect(elapsedMs).toBeGreaterThanOrEqual(1_900);
      expect(elapsedMs).toBeLessThan(10_000);
      const metrics = await request(service.app).get('/metrics');
      expect(metrics.text).toContain('images_storage_errors_total{backend="s3",operation="answers"} 1');
    } finally {
      await service.close();
      await hung.close();
    }
  }, 30_000);

  test('when the bucket refuses connections, then /readyz answers 503 bucket down, and the failure is counted', async () => {
    const service = appWithBucketAt(await refusingUrl());
    try {
      const ready = await request(service.app).get('/readyz');
      expect([ready.status, ready.body]).toEqual([503, { status: 'unavailable', database: 'ok', bucket: 'down' }]);
      const metrics = await request(service.app).get('/metrics');
      expect(metrics.text).toContain('images_storage_errors_total{backend="s3",operation="answers"} 1');
    } finally {
      await service.close();
    }
  }, 30_000);
});
