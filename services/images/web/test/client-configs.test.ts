/**
 * The settings the Clients page gives (src/client-configs.ts), used the way each client uses them,
 * against the platform as `npm start` runs it: the Flameshot command run by a shell (with a file in
 * place of the capture), uPic's custom host request (its multipart, its URL Path), PicList's Lsky
 * uploader, and the command-line uploader's config written by the page's command.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientSettings } from '../src/client-configs';
import { sampleImage } from './support/sample-images';
import { startWebPlatform, type WebPlatform } from './support/web-platform';

const UPLOADER = path.join(__dirname, '..', '..', '..', '..', 'packages', 'uploader', 'bin', 'upload.mjs');

let platform: WebPlatform;
let token: string;
let home: string;
let png: string;

beforeAll(async () => {
  platform = await startWebPlatform();
  token = (await platform.services.userAdmin.createUser({ name: 'dave' })).token;
  home = mkdtempSync(path.join(os.tmpdir(), 'client-configs-'));
  png = path.join(home, 'capture.png');
  writeFileSync(png, await sampleImage('screenshot', 'png', 320, 200));
}, 120000);

afterAll(async () => {
  await platform?.close();
  rmSync(home, { recursive: true, force: true });
});

function run(file: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { PATH: process.env.PATH ?? '', HOME: home } }, (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

const servedUrl = () => new RegExp(`^${platform.baseUrl}/i/\\d{4}/\\d{2}/\\d{2}/[0-9a-f]{32}\\.png$`);

test('when the Flameshot command runs (the capture replaced by a file), then it prints the image URL', async () => {
  const { block } = clientSettings('flameshot', platform.baseUrl, token);
  expect(block.startsWith('flameshot gui -r | ')).toBe(true);
  const result = await run('bash', ['-c', block.replace('flameshot gui -r', `cat ${png}`)]);
  expect(result.stdout.trim()).toMatch(servedUrl());
});

test('when uPic sends its custom host request with the given settings, then the URL Path finds the image URL', async () => {
  const { block } = clientSettings('upic', platform.baseUrl, token);
  const config = JSON.parse(block) as { url: string; method: string; field: string; headers: string; resultPath: string };
  const headers = (JSON.parse(config.headers) as Array<{ key: string; value: string }>).filter((header) => header.key.toLowerCase() !== 'content-type');
  // The Content-Type header is what makes uPic send multipart; Alamofire then writes its own, with the boundary.
  expect(JSON.parse(config.headers)).toContainEqual({ key: 'Content-Type', value: 'multipart/form-data' });
  const form = new FormData();
  form.append(config.field, new Blob([readFileSync(png)], { type: 'image/png' }), 'capture.png');
  const res = await fetch(config.url, { method: config.method, headers: Object.fromEntries(headers.map((header) => [header.key, header.value])), body: form });
  expect(res.status).toBe(200);
  let value: unknown = await res.json();
  for (const step of JSON.parse(config.resultPath) as string[]) value = (value as Record<string, unknown>)[step];
  expect(value).toMatch(servedUrl());
});

test('when PicList uses the Lsky settings, then its upload answers status true with data.links.url', async () => {
  const { block } = clientSettings('piclistLsky', platform.baseUrl, token);
  const { lskyplist } = (JSON.parse(block) as { picBed: { lskyplist: { host: string; token: string } } }).picBed;
  const form = new FormData();
  form.append('file', new Blob([readFileSync(png)], { type: 'image/png' }), 'capture.png');
  form.append('ssl', 'true');
  form.append('permission', '1');
  const res = await fetch(`${lskyplist.host.replace(/\/$/, '')}/api/v1/upload`, { method: 'POST', headers: { Accept: 'application/json', Authorization: lskyplist.token, 'User-Agent': 'PicList' }, body: form });
  const body = JSON.parse(await res.text()) as { status: boolean; data: { links: { url: string } } };
  expect(body.status).toBe(true);
  expect(body.data.links.url).toMatch(servedUrl());
});

test('when the command-line settings are written by the page\'s command, then `upload` reads them and prints the URL', async () => {
  const { block } = clientSettings('cli', platform.baseUrl, token);
  expect((await run('bash', ['-c', block])).status).toBe(0);
  const result = await run(process.execPath, [UPLOADER, png]);
  expect(result).toMatchObject({ status: 0, stderr: '' });
  expect(result.stdout.trim()).toMatch(servedUrl());
});
