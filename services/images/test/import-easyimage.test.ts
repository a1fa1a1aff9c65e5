import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { IMPORT_USAGE } from '../src/admin/import-command';
import { fixtureBytes, filesIn, imageRows, createTestUser, publicBytes, storedKeys, usedBytes } from './support/harness';
import { reportRows, useImportRun } from './support/import-run';
import { writeEasyImageInstall, type InstalledUpload } from './support/easyimage-install';

const run = useImportRun('easyimage-');
const { admin } = run;

const LIVE_TOKEN = '1c17b11693cb5ec63859b091c5b9c1b2';
const TOKENS = {
  [LIVE_TOKEN]: { id: 0, expired: 2544411528, add_time: 1680497928 },
  '833c5611862efcaa9955205ee96125e9': { id: 2, expired: 1680584583, add_time: 1680498183 },
};
const UPLOADS: InstalledUpload[] = [
  { at: 'i/2024/01/02/65a1b2c3d4e5f.png', bytes: fixtureBytes('alpha.png'), log: { source: 'Cat &amp; &quot;dog&quot;.png', date: '2024-01-02 08:30:00' } },
  { at: 'i/2024/01/03/65a2b2c3d4e5f.gif', bytes: fixtureBytes('animated.gif') },
  { at: 'i/u/2024/02/10/65c7b2c3d4e5f.webp', bytes: fixtureBytes('photo.webp'), log: { source: '截图.webp', date: '2024-02-10 23:59:59' } },
];
const BROKEN: InstalledUpload = { at: 'i/2024/01/04/65a3b2c3d4e5f.jpg', bytes: fixtureBytes('truncated.jpg'), log: { source: 'broken.jpg', date: '2024-01-04 12:00:00' } };

const importArgs = (mapFile = path.join(run.dir, 'redirects.map')) => ['import-from', 'easyimage', path.join(run.dir, 'install'), '--user', 'alice', '--redirect-map', mapFile];

/** A free loopback port (taken and let go: nginx binds it next). */
async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** Runs nginx with the README's old-host server block on the map, asks it for `uri`, and stops it. */
async function askNginx(mapFile: string, uri: string): Promise<{ status: number; location: string | null }> {
  const nginxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-nginx-'));
  const port = await freePort();
  const conf = path.join(nginxDir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `pid ${nginxDir}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n  access_log off;\n  map $uri $imported_image { default ""; include ${mapFile}; }\n` +
      `  server { listen 127.0.0.1:${port}; if ($imported_image) { return 301 $imported_image; } location / { return 404; } }\n}\n`,
  );
  const nginx = spawn('nginx', ['-e', 'stderr', '-p', nginxDir, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  nginx.stderr.on('data', (chunk) => (errors += String(chunk)));
  try {
    // Until it listens: each refused connection is nginx still starting (or failing, which its stderr says).
    for (;;) {
      if (nginx.exitCode !== null) throw new Error(`nginx stopped: ${errors}`);
      const answer = await fetch(`http://127.0.0.1:${port}${uri}`, { redirect: 'manual' }).catch(() => null);
      if (answer) return { status: answer.status, location: answer.headers.get('location') };
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    nginx.kill('SIGQUIT');
    if (nginx.exitCode === null) await once(nginx, 'exit');
    fs.rmSync(nginxDir, { recursive: true, force: true });
  }
}

describe('import-from easyimage', () => {
  test('when an install is imported, then each image is stored with its original name and upload date, tokens keep working, the broken file is reported and the rest goes on', async () => {
    const alice = await createTestUser(run.svc.db, 'alice');
    writeEasyImageInstall(path.join(run.dir, 'install'), { tokens: TOKENS, uploads: [...UPLOADS, BROKEN] });

    const result = await admin(importArgs());

    expect(result.code).toBe(1);
    expect(reportRows(result.out)).toEqual([
      'imported token token 0',
      'skipped token token 2',
      'imported image /i/2024/01/02/65a1b2c3d4e5f.png',
      'imported image /i/2024/01/03/65a2b2c3d4e5f.gif',
      'failed image /i/2024/01/04/65a3b2c3d4e5f.jpg',
      'imported image /i/u/2024/02/10/65c7b2c3d4e5f.webp',
    ]);
    expect(result.out).toContain('skipped\ttoken\ttoken 2\texpired 2023-04-04T05:03:03.000Z');
    expect(result.out).toContain('failed\timage\t/i/2024/01/04/65a3b2c3d4e5f.jpg\tthe image file is damaged');
    expect(result.out).toContain('imported 4, skipped 1, failed 1');
    expect(result.err.at(-1)).toBe('error: 1 row(s) failed (listed above): fix them and run the same command again; what was imported is skipped');

    const rows = await imageRows(run.svc.db, alice.id);
    expect(rows.map((row) => [row.original_name, (row.created_at as Date).toISOString(), row.status])).toEqual([
      ['Cat & "dog".png', '2024-01-02T00:30:00.000Z', 'stored'],
      // No log entry: the day of its folder, at midnight in the install's time zone.
      ['65a2b2c3d4e5f.gif', '2024-01-02T16:00:00.000Z', 'stored'],
      ['截图.webp', '2024-02-10T15:59:59.000Z', 'stored'],
    ]);
    expect(await usedBytes(run.svc.db, alice.id)).toBe(rows.reduce((sum, row) => sum + Number(row.file_size), 0));
    expect(result.out).toContain(`used bytes of alice: ${await usedBytes(run.svc.db, alice.id)}`);
    const firstUrl = result.out.find((line) => line.startsWith('imported\timage\t/i/2024/01/02/'))!.split('\t')[3]!;
    expect(await publicBytes(run.svc, firstUrl)).toEqual(fixtureBytes('alpha.png'));
    expect(filesIn(run.svc.storageDir, 'tmp')).toEqual([]);
    // The old host's files are read, never moved.
    expect(fs.readFileSync(path.join(run.dir, 'install', UPLOADS[0]!.at))).toEqual(fixtureBytes('alpha.png'));

    // The live EasyImage token now uploads through the EasyImage-compatible API as alice.
    const upload = await request(run.svc.app).post('/compat/easyimage/api/index.php').field('token', LIVE_TOKEN).attach('image', path.join(run.dir, 'install', UPLOADS[0]!.at));
    expect(upload.body).toMatchObject({ result: 'success', code: 200 });
    // The same picture as an imported one: answered with that image, nothing stored again (deduplication).
    const afterUpload = await imageRows(run.svc.db, alice.id);
    expect(afterUpload).toHaveLength(3);
    expect(afterUpload.map((row) => `http://img.test/i/${String(row.storage_key)}`)).toContain(upload.body.url);
  });

  test('when it runs twice, then the second run imports nothing again and writes the same redirect map', async () => {
    const alice = await createTestUser(run.svc.db, 'alice');
    writeEasyImageInstall(path.join(run.dir, 'install'), { tokens: TOKENS, uploads: UPLOADS });
    const first = await admin(importArgs());
    expect(first.code).toBe(0);
    const map = fs.readFileSync(path.join(run.dir, 'redirects.map'), 'utf8');
    const stored = await storedKeys(run.svc, 'public');
    const used = await usedBytes(run.svc.db, alice.id);

    const second = await admin(importArgs());

    expect(second.code).toBe(0);
    expect(reportRows(second.out)).toEqual([
      'skipped token token 0',
      'skipped token token 2',
      'skipped image /i/2024/01/02/65a1b2c3d4e5f.png',
      'skipped image /i/2024/01/03/65a2b2c3d4e5f.gif',
      'skipped image /i/u/2024/02/10/65c7b2c3d4e5f.webp',
    ]);
    expect(second.out).toContain('skipped\timage\t/i/2024/01/02/65a1b2c3d4e5f.png\talready imported');
    expect(second.out).toContain('imported 0, skipped 5, failed 0');
    expect(await imageRows(run.svc.db, alice.id)).toHaveLength(3);
    expect(Number((await run.svc.db('credentials').where({ user_id: alice.id, kind: 'named' }).count({ n: '*' }).first())?.n)).toBe(1); // a count is a string on Postgres, a number on PGlite
    expect(await storedKeys(run.svc, 'public')).toEqual(stored);
    expect(await usedBytes(run.svc.db, alice.id)).toBe(used);
    expect(fs.readFileSync(path.join(run.dir, 'redirects.map'), 'utf8')).toBe(map);
  });

  test('when a run is interrupted, then the next run continues where it stopped, and an image stored but not yet recorded is not stored twice', async () => {
    const alice = await createTestUser(run.svc.db, 'alice');
    writeEasyImageInstall(path.join(run.dir, 'install'), { tokens: {}, uploads: UPLOADS });
    // The process dies right after it reported its first image.
    const interrupted = await admin(importArgs(), (line) => {
      if (line.startsWith('imported\timage')) throw new Error('killed');
    });
    expect(interrupted.code).toBe(1);
    expect(interrupted.err).toEqual([expect.stringMatching(/^importing 3 image/), 'error: killed']);
    expect(await imageRows(run.svc.db, alice.id)).toHaveLength(1);
    // And a run that died between storing the second image and recording it: its record is missing.
    const second = await admin(importArgs(), (line) => {
      if (line.startsWith('imported\timage\t/i/2024/01/03/')) throw new Error('killed');
    });
    expect(second.code).toBe(1);
    await run.svc.db('import_records').where({ source_id: '/i/2024/01/03/65a2b2c3d4e5f.gif' }).delete();

    const resumed = await admin(importArgs());

    expect(resumed.code).toBe(0);
    expect(reportRows(resumed.out)).toEqual([
      'skipped image /i/2024/01/02/65a1b2c3d4e5f.png',
      'imported image /i/2024/01/03/65a2b2c3d4e5f.gif',
      'imported image /i/u/2024/02/10/65c7b2c3d4e5f.webp',
    ]);
    const rows = await imageRows(run.svc.db, alice.id);
    expect(rows.map((row) => row.original_name)).toEqual(['Cat & "dog".png', '65a2b2c3d4e5f.gif', '截图.webp']);
    expect(await storedKeys(run.svc, 'public')).toHaveLength(3);
    expect(await usedBytes(run.svc.db, alice.id)).toBe(rows.reduce((sum, row) => sum + Number(row.file_size), 0));
  });

  test('when the owner\'s group quota is reached part-way, then the rest are reported with the reason and used bytes stay exact; raising the quota and running again brings them in', async () => {
    const alice = await createTestUser(run.svc.db, 'alice');
    writeEasyImageInstall(path.join(run.dir, 'install'), { tokens: {}, uploads: UPLOADS });
    await run.svc.db('groups').where({ name: 'default' }).update({ quota_bytes: fixtureBytes('alpha.png').length + 10 });

    const limited = await admin(importArgs());

    expect(limited.code).toBe(1);
    expect(limited.out.filter((line) => line.startsWith('failed'))).toEqual([
      "failed\timage\t/i/2024/01/03/65a2b2c3d4e5f.gif\tover the owner's group quota (raise it with edit-group, then run the import again)",
      "failed\timage\t/i/u/2024/02/10/65c7b2c3d4e5f.webp\tover the owner's group quota (raise it with edit-group, then run the import again)",
    ]);
    const [only] = await imageRows(run.svc.db, alice.id);
    expect(await usedBytes(run.svc.db, alice.id)).toBe(Number(only!.file_size));

    expect((await admin(['edit-group', 'default', '--quota', '1GiB'])).code).toBe(0);
    const again = await admin(importArgs());
    expect(again.code).toBe(0);
    expect(again.out).toContain('imported 2, skipped 1, failed 0');
    const rows = await imageRows(run.svc.db, alice.id);
    expect(await usedBytes(run.svc.db, alice.id)).toBe(rows.reduce((sum, row) => sum + Number(row.file_size), 0));
  });

  test('when the redirect map is written, then it maps each old path to the image\'s new address as an nginx map body, nothing else is written beside it, and nginx redirects an old path by it', async () => {
    await createTestUser(run.svc.db, 'alice');
    writeEasyImageInstall(path.join(run.dir, 'install'), { tokens: {}, uploads: UPLOADS });
    const mapFile = path.join(run.dir, 'redirects.map');
    expect((await admin(importArgs(mapFile))).code).toBe(0);
    const keys = (await imageRows(run.svc.db)).map((row) => row.storage_key as string);

    expect(fs.readFileSync(mapFile, 'utf8')).toBe(
      [
        `# EasyImage ${path.join(run.dir, 'install')}: old path -> new address (map $uri $imported_image { include ${mapFile}; })`,
        `"/i/2024/01/02/65a1b2c3d4e5f.png" "${run.svc.config.publicBaseUrl}/i/${keys[0]}";`,
        `"/i/2024/01/03/65a2b2c3d4e5f.gif" "${run.svc.config.publicBaseUrl}/i/${keys[1]}";`,
        `"/i/u/2024/02/10/65c7b2c3d4e5f.webp" "${run.svc.config.publicBaseUrl}/i/${keys[2]}";`,
        '',
      ].join('\n'),
    );
    expect(fs.readdirSync(run.dir).sort()).toEqual(['install', 'redirects.map']);

    // nginx, as the README sets it up for the old host name, answers an old path with the new address.
    const location = await askNginx(mapFile, '/i/u/2024/02/10/65c7b2c3d4e5f.webp');
    expect(location).toEqual({ status: 301, location: `${run.svc.config.publicBaseUrl}/i/${keys[2]}` });
    expect(await askNginx(mapFile, '/i/2024/01/09/unknown.png')).toEqual({ status: 404, location: null });
  });

  test('when the directory is not an EasyImage install or the user is missing, then it says so and imports nothing', async () => {
    fs.mkdirSync(path.join(run.dir, 'install'));
    expect(await admin(importArgs())).toMatchObject({ code: 1, err: [`error: ${path.join(run.dir, 'install')} is not an EasyImage install: there is no config/config.php`] });
    writeEasyImageInstall(path.join(run.dir, 'install'), { tokens: {}, uploads: UPLOADS });
    expect(await admin(importArgs())).toMatchObject({ code: 1, err: ['error: user alice does not exist: create it first (create-user alice)'] });
    expect(await admin(['import-from', 'easyimage', path.join(run.dir, 'install')])).toMatchObject({ code: 2, err: [`error: usage: ${IMPORT_USAGE}`, 'run with --help for usage'] });
    expect(await imageRows(run.svc.db)).toEqual([]);
    expect(Number((await run.svc.db('import_records').count({ n: '*' }).first())?.n)).toBe(0); // a count is a string on Postgres, a number on PGlite
  });
});
