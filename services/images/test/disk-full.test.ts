import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { loadOpenApi, type OpenApiValidator } from '@platform/kit/testing';
import { createTestUser, filesIn, storedKeys, fixture, fixtureBytes, imageRows, openTestService, usedBytes, type TestService } from './support/harness';

// A real full filesystem: a small tmpfs mounted for the test (needs root, as CI runs). Each test
// leaves exactly the room that lets the upload pass the stages before the one under test.

function canMountTmpfs(): boolean {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

const describeWithTmpfs = (name: string, body: () => void) => {
  if (canMountTmpfs()) describe(name, body);
  else if (process.env.REQUIRE_REAL_SERVICES === '1') {
    describe(name, () => test('needs to mount a tmpfs (root)', () => {
      throw new Error('REQUIRE_REAL_SERVICES=1 but this process cannot mount a tmpfs');
    }));
  } else describe.skip(`${name} (needs to mount a tmpfs: run as root)`, body);
};

const PAGE = 4096;
const pages = (bytes: number) => Math.ceil(bytes / PAGE);

describeWithTmpfs('a full disk (real tmpfs)', () => {
  let mountPoint: string;
  let svc: TestService;
  let spec: OpenApiValidator;
  const logLines: Array<Record<string, unknown>> = [];
  const storageFull = { code: 1, msg: '服务器存储空间不足，请稍后重试' };
  const NOW = new Date();

  beforeAll(async () => {
    spec = await loadOpenApi(path.join(__dirname, '..', 'openapi.yaml'));
    mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'images-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,nr_inodes=400', 'tmpfs', mountPoint]);
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
    // A fixed clock: the day folder the service writes to is the one prepared below, even across midnight.
    // The local backend's disk: with S3 only tmp/ is on the local disk, and the bucket has no such limit.
    // Uploads are received into tmp/ (UPLOAD_MEMORY_BYTES=0), so that each stage's room can be set; the
    // last test takes one into memory.
    svc = await openTestService({ STORAGE_DIR: path.join(mountPoint, 'store'), STORAGE_BACKEND: 'local', UPLOAD_MEMORY_BYTES: '0' }, { logger, clock: () => NOW });
  });
  afterAll(async () => {
    await svc?.close();
    execFileSync('umount', [mountPoint]);
    fs.rmSync(mountPoint, { recursive: true, force: true });
  });
  beforeEach(async () => {
    logLines.length = 0;
    fs.rmSync(path.join(mountPoint, 'filler'), { recursive: true, force: true });
    await svc.reset();
    // The day folders exist already, so only the stage under test needs new room.
    for (const area of ['public', 'bin', 'thumbs']) fs.mkdirSync(path.join(svc.storageDir, area, dayFolder()), { recursive: true });
  });

  function dayFolder(): string {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(NOW).map((p) => [p.type, p.value]),
    );
    return `${parts.year}/${parts.month}/${parts.day}`;
  }

  /** Fills the filesystem until exactly `freePages` pages and `freeInodes` inodes are left. */
  function leaveRoom(freePages: number, freeInodes = 100): void {
    const filler = path.join(mountPoint, 'filler');
    fs.mkdirSync(filler, { recursive: true });
    let stats = fs.statfsSync(mountPoint);
    const bytes = (stats.bavail - freePages) * PAGE;
    if (bytes > 0) fs.writeFileSync(path.join(filler, 'space'), Buffer.alloc(bytes));
    stats = fs.statfsSync(mountPoint);
    for (let i = 0; stats.ffree > freeInodes; i += 1) {
      fs.writeFileSync(path.join(filler, `inode-${i}`), '');
      stats = fs.statfsSync(mountPoint);
    }
    expect({ pages: fs.statfsSync(mountPoint).bavail, inodes: fs.statfsSync(mountPoint).ffree }).toEqual({ pages: freePages, inodes: freeInodes });
  }

  /** Answered 507, logged with its cause (returned), and nothing left: no row, no file, no charge. */
  async function expectRefusedAndUndone(userId: number, res: request.Response): Promise<{ syscall?: string; stack?: string }> {
    expect(res.status).toBe(507);
    expect(res.body).toEqual(storageFull);
    spec.expectResponseMatchesSpec(res, { path: '/api/image.php', method: 'POST', action: 'upload' });
    expect(await imageRows(svc.db)).toEqual([]);
    for (const area of ['public', 'bin', 'thumbs', 'tmp'] as const) expect(filesIn(svc.storageDir, area)).toEqual([]);
    expect(await usedBytes(svc.db, userId)).toBe(0);
    const logged = logLines.find((line) => line.msg === 'storage full: the request was refused and undone');
    expect(logged).toMatchObject({ level: 50, err: { code: 'ENOSPC' } });
    return logged!.err as { syscall?: string; stack?: string };
  }

  const upload = (token: string) => request(svc.app).post('/api/image.php?action=upload').set('X-API-Token', token).attach('file', fixture('photo.webp'));

  test('when there is no room for the upload as it arrives, then 507 storage full (not 请求格式错误), logged, and no partial file', async () => {
    const user = await createTestUser(svc.db);
    leaveRoom(1);
    const cause = await expectRefusedAndUndone(user.id, await upload(user.token));
    expect(cause.syscall).toBe('write');
    expect(cause.stack).not.toContain('upload-service');
  });

  test('when there is room for the upload but not for its thumbnail, then 507, the stored original is removed and the charge refunded', async () => {
    const user = await createTestUser(svc.db);
    leaveRoom(pages(fixtureBytes('photo.webp').length));
    const cause = await expectRefusedAndUndone(user.id, await upload(user.token));
    expect(cause.stack).toContain('writeFile');
  });

  test('when the original cannot be renamed into a new folder (no inode left), then 507 and nothing is kept', async () => {
    const user = await createTestUser(svc.db);
    fs.rmSync(path.join(svc.storageDir, 'public', dayFolder().slice(0, 4)), { recursive: true });
    // One inode: the temp file takes it; the public/YYYY folder then finds none.
    leaveRoom(200, 1);
    const cause = await expectRefusedAndUndone(user.id, await upload(user.token));
    expect(cause.syscall).toBe('mkdir');
  });

  test('when an upload received into memory finds no room to be written, then 507, logged, and no partial file', async () => {
    const { createApp } = await import('../src/app');
    const { createMediaProcessor } = await import('../src/media/media-processor');
    const { createMetrics } = await import('../src/metrics/metrics');
    const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) });
    const config = { ...svc.config, uploadMemoryBytes: 64 * 1024 * 1024 };
    const inMemory = createApp({ config, db: svc.db, storage: svc.storage, media: createMediaProcessor(), metrics: createMetrics(), logger, clock: () => NOW });
    const user = await createTestUser(svc.db);
    leaveRoom(1);
    const res = await request(inMemory).post('/api/image.php?action=upload').set('X-API-Token', user.token).attach('file', fixture('photo.webp'));
    const cause = await expectRefusedAndUndone(user.id, res);
    // Received whole (nothing was written as it arrived); the store's write is what failed.
    expect(cause.stack).toContain('writeFile');
  });

  test('when a delete cannot move the file into the bin (no inode for the folder), then 507 and the image stays stored and served', async () => {
    const user = await createTestUser(svc.db);
    const stored = (await upload(user.token)).body.data;
    fs.rmSync(path.join(svc.storageDir, 'bin', dayFolder().slice(0, 4)), { recursive: true });
    leaveRoom(200, 0);
    const res = await request(svc.app).post('/api/image.php?action=delete').set('X-API-Token', user.token).send({ id: stored.id });
    expect(res.status).toBe(507);
    expect(res.body).toEqual(storageFull);
    spec.expectResponseMatchesSpec(res, { path: '/api/image.php', method: 'POST', action: 'delete' });
    expect((await imageRows(svc.db)).map((row) => row.status)).toEqual(['stored']);
    expect(await storedKeys(svc, 'public')).toHaveLength(1);
    expect(await usedBytes(svc.db, user.id)).toBe(stored.file_size);
  });
});
