import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestUser, fixture, imageRows, openTestService, publicBytes, type TestService } from './support/harness';

/** The command-line uploader (packages/uploader), run as Typora runs it, against the service on a real socket. */
const UPLOADER = path.join(__dirname, '..', '..', '..', 'packages', 'uploader', 'bin', 'upload.mjs');

let svc: TestService;
let server: string;
beforeAll(async () => {
  svc = await openTestService();
  server = `http://127.0.0.1:${(svc.server.address() as AddressInfo).port}`;
});
afterAll(async () => svc?.close());
beforeEach(async () => svc.reset());

function upload(args: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // HOME elsewhere: the user's own config file is never read by a test.
    const childEnv = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env };
    execFile(process.execPath, [UPLOADER, ...args], { env: childEnv }, (error, stdout, stderr) => {
      resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('upload FILE…', () => {
  test('when two files are given with server and token in the environment, then one URL per line in their order, both stored', async () => {
    const user = await createTestUser(svc.db);

    const run = await upload([fixture('alpha.png'), fixture('photo.webp')], { IMAGES_SERVER: `${server}/`, IMAGES_TOKEN: user.token });

    expect(run).toMatchObject({ status: 0, stderr: '' });
    const urls = run.stdout.trimEnd().split('\n');
    expect(urls).toEqual([expect.stringMatching(/^http:\/\/img\.test\/i\/.+\.png$/), expect.stringMatching(/^http:\/\/img\.test\/i\/.+\.webp$/)]);
    for (const url of urls) expect(await publicBytes(svc, url)).not.toBeNull();
    expect((await imageRows(svc.db, user.id)).map((row) => row.original_name)).toEqual(['alpha.png', 'photo.webp']);
  });

  test('when --markdown is given and the settings come from a config file, then a Markdown image per line', async () => {
    const user = await createTestUser(svc.db);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uploader-'));
    const config = path.join(dir, 'config.json');
    fs.writeFileSync(config, JSON.stringify({ server, token: user.token }));
    try {
      const run = await upload(['--markdown', '--config', config, fixture('tiny.png')], {});
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^!\[tiny\.png\]\(http:\/\/img\.test\/i\/.+\.png\)\n$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('when the service refuses (quota, wrong token), then exit 1 with its message on stderr, and the other files still go', async () => {
    const user = await createTestUser(svc.db);
    const wrongToken = await upload([fixture('tiny.png')], { IMAGES_SERVER: server, IMAGES_TOKEN: 'wrong' });
    expect(wrongToken).toEqual({ status: 1, stdout: '', stderr: `${fixture('tiny.png')}: 请先登录\n` });

    const refused = await upload([fixture('tiny.png'), fixture('drawing.svg')], { IMAGES_SERVER: server, IMAGES_TOKEN: user.token });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/^http:\/\/img\.test\/i\/.+\.png\n$/);
    expect(refused.stderr).toBe(`${fixture('drawing.svg')}: 不支持的文件类型\n`);

    await svc.db('groups').where({ name: 'default' }).update({ quota_bytes: 1 });
    const full = await upload([fixture('alpha.png')], { IMAGES_SERVER: server, IMAGES_TOKEN: user.token });
    expect(full).toEqual({ status: 1, stdout: '', stderr: `${fixture('alpha.png')}: 存储空间不足\n` });
  });

  test('when no server or token is set, then exit 2 saying what to set', async () => {
    const run = await upload([fixture('tiny.png')], {});
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('set IMAGES_SERVER and IMAGES_TOKEN');
  });
});
