/**
 * scripts/backup/backup.sh and restore.sh (docs/operating.md, "Backups"): a copy of the images
 * database and files, restored into a fresh database owned by the service's role (made by the compose
 * init script, proxy/postgres-init/01-databases.sh) and new storage, is the same service: the same
 * rows, the same bytes, a consistent store, and the user's token still opens it. Real Postgres only
 * (pg_dump works on a server).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import request from 'supertest';
import { Client } from 'pg';
import { loadConfig } from '../src/config';
import { openImagesService } from '../src/open-service';
import { TEST_KEYS, createTestUser, expectConsistentStore, filesIn, fixtureBytes, imageRows, openTestService, realDatabaseUrl, type TestService } from './support/harness';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BACKUP = path.join(ROOT, 'scripts', 'backup', 'backup.sh');
const RESTORE = path.join(ROOT, 'scripts', 'backup', 'restore.sh');
const INIT = path.join(ROOT, 'proxy', 'postgres-init', '01-databases.sh');
const API = '/api/image.php';
const run = promisify(execFile);

if (!realDatabaseUrl && process.env.REQUIRE_REAL_SERVICES === '1') throw new Error('REQUIRE_REAL_SERVICES=1 but TEST_DATABASE_URL is not set');
const describeWithPostgres = realDatabaseUrl ? describe : describe.skip;

/** Every file of the storage's resting areas with a digest of its bytes. */
function filesWithDigests(storageDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const area of ['public', 'bin', 'thumbs'] as const) {
    for (const file of filesIn(storageDir, area)) {
      out[`${area}/${file}`] = createHash('sha256').update(fs.readFileSync(path.join(storageDir, area, file))).digest('hex');
    }
  }
  return out;
}

describeWithPostgres('backup and restore (scripts/backup)', () => {
  let temp: string;
  let backupDir: string;
  let restoredStorage: string;
  const role = `restore_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const password = '5f4dcc3b5aa765d61d8327deb882cf99';
  const server = new URL(realDatabaseUrl ?? 'postgres://localhost');
  const roleUrl = Object.assign(new URL(server), { username: role, password, pathname: `/${role}` }).toString();
  let svc: TestService;

  beforeAll(async () => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'images-backup-'));
    backupDir = path.join(temp, 'backup');
    restoredStorage = path.join(temp, 'restored-storage');
    // Local storage even in the S3 run: the files this backup copies are the volume's.
    svc = await openTestService({ STORAGE_BACKEND: 'local' });
  });

  afterAll(async () => {
    await svc?.close();
    if (temp) fs.rmSync(temp, { recursive: true, force: true });
    const client = new Client({ connectionString: realDatabaseUrl });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${role}" WITH (FORCE)`);
    await client.query(`DROP ROLE IF EXISTS "${role}"`);
    await client.end();
  });

  test('when a backup is restored into a fresh database and storage, then rows, files and the user\'s access are as they were', async () => {
    const user = await createTestUser(svc.db);
    const uploaded: Array<{ id: number }> = [];
    for (const name of ['tiny.png', 'alpha.png', 'phone-orientation6.jpg']) {
      const res = await request(svc.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixtureBytes(name), { filename: name, contentType: 'application/octet-stream' });
      expect(res.body.code).toBe(0);
      uploaded.push(res.body.data);
    }
    // One in the bin, so bin/ is copied too.
    const binned = await request(svc.app).post(`${API}?action=delete`).set('X-API-Token', user.token).field('id', String(uploaded[0]!.id));
    expect(binned.body.code).toBe(0);
    const rows = await imageRows(svc.db);
    const files = filesWithDigests(svc.storageDir);
    expect(rows.map((row) => row.status)).toEqual(['binned', 'stored', 'stored']);
    expect(Object.keys(files).map((file) => file.split('/')[0])).toEqual(['public', 'public', 'bin', 'thumbs', 'thumbs', 'thumbs']);

    const backup = await run('sh', [BACKUP, backupDir], { env: { PATH: process.env.PATH, IMAGES_DATABASE_URL: svc.config.databaseUrl, IMAGES_STORAGE_DIR: svc.storageDir } });
    expect(backup.stdout.trim().split('\n')).toEqual([`${backupDir}/images.dump`, `${backupDir}/images-files.tar`]);

    // A fresh compose volume: the init script makes the service's role and its empty database.
    const secrets = path.join(temp, 'secrets');
    fs.mkdirSync(secrets);
    fs.writeFileSync(path.join(secrets, `${role}_db_password`), `${password}\n`);
    await run('sh', [INIT], {
      env: { PATH: process.env.PATH, PGHOST: server.hostname, PGPORT: server.port || '5432', POSTGRES_USER: decodeURIComponent(server.username) || 'postgres', SECRETS_DIR: secrets, SERVICE_DATABASES: role, REVOKE_POSTGRES_DATABASE: 'no' },
    });
    const restore = await run('sh', [RESTORE, backupDir], { env: { PATH: process.env.PATH, IMAGES_DATABASE_URL: roleUrl, IMAGES_STORAGE_DIR: restoredStorage } });
    expect(restore.stdout.trim().split('\n')).toEqual(['restored images database', 'restored images files']);

    // The restored service, as a replica starts: it only verifies the schema.
    const config = loadConfig({ ...TEST_KEYS, DATABASE_URL: roleUrl, STORAGE_DIR: restoredStorage, STORAGE_BACKEND: 'local', DATABASE_MIGRATIONS: 'verify', PUBLIC_BASE_URL: 'http://img.test', LOG_LEVEL: 'silent' });
    const restored = await openImagesService(config, { housekeepingIntervalMs: null, logger: pino({ level: 'silent' }) });
    try {
      expect(await imageRows(restored.db)).toEqual(rows);
      expect(filesWithDigests(restoredStorage)).toEqual(files);
      await expectConsistentStore(restored);
      const list = await request(restored.app).get(`${API}?action=list`).set('X-API-Token', user.token);
      expect(list.body.code).toBe(0);
      expect(list.body.data.list.map((image: { id: number }) => image.id)).toEqual([uploaded[2]!.id, uploaded[1]!.id]);
      // Its id sequence goes on after the restored rows.
      const next = await request(restored.app).post(`${API}?action=upload`).set('X-API-Token', user.token).attach('file', fixtureBytes('tiny.gif'), { filename: 'tiny.gif', contentType: 'application/octet-stream' });
      expect(next.body.code).toBe(0);
      expect(next.body.data.id).toBeGreaterThan(uploaded[2]!.id);
    } finally {
      await restored.close();
    }
  });

  test('when the target already holds data, then restore refuses, naming it, and changes nothing', async () => {
    const before = filesWithDigests(restoredStorage);
    const intoStorage = run('sh', [RESTORE, backupDir], { env: { PATH: process.env.PATH, IMAGES_DATABASE_URL: roleUrl, IMAGES_STORAGE_DIR: restoredStorage } });
    await expect(intoStorage).rejects.toMatchObject({ code: 1, stderr: `${restoredStorage}/public is not empty: restore into new storage\n` });
    const intoDatabase = run('sh', [RESTORE, backupDir], { env: { PATH: process.env.PATH, IMAGES_DATABASE_URL: roleUrl } });
    await expect(intoDatabase).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/^the images database is not empty \(\d+ tables\): restore into a new one\n$/) });
    expect(filesWithDigests(restoredStorage)).toEqual(before);
    const again = run('sh', [BACKUP, backupDir], { env: { PATH: process.env.PATH, IMAGES_DATABASE_URL: svc.config.databaseUrl } });
    await expect(again).rejects.toMatchObject({ code: 1, stderr: `${backupDir} is not empty: back up into a new folder\n` });
  });
});
