/**
 * The `replicas` scenario (issue 45, target 4): one replica of each service against two, on this
 * machine, behind nginx rendered from the same template. It reports; it has no target.
 *
 * The one-replica side is the bench's own front (nginx → the images and tools services it started).
 * The two-replica side is a second nginx from the same template whose upstream blocks list those
 * same processes and a second replica of each, started with the same environment (same databases,
 * same storage folder, same Redis). The two sides take the same requests in alternating slices, so
 * the ratio is of two figures taken under the same drift; CPU per request counts both replicas.
 *
 * Requests: the images list of a user with `smallImages` images (pages 1–5), the tools list (pages
 * 1–13, key in the header) at `connections`, and uploads of the two photos at `uploadConnections`.
 */
import path from 'node:path';
import { Client } from 'pg';
import type { Side } from './alternate';
import type { Bench, Uploads } from './bench';
import { seedImageRows, uniqueMultipartUploads } from './dataset';
import { stopGroup } from './lifecycle';
import type { LoadOptions } from './load';
import type { ProcessGroup } from './proc';
import { type Measured, type Row, totalCpu } from './report';
import { startProjectNginx, startService, treeGroup } from './stack';

const TOOLS_LIST_PAGES = 13;
const LIST_PAGES = 5;

/** The images of `userName`, stored. */
async function storedImages(databaseUrl: string, userName: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM images i JOIN users u ON u.id = i.user_id WHERE u.name = $1 AND i.status = 'stored'", [userName]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

const fixed = (value: number | undefined, digits: number) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '-');

export async function replicasScenario(bench: Bench, uploads: Uploads, log: (line: string) => void): Promise<void> {
  const { mode, lifecycle, workDir } = bench;
  log('replicas: one replica of each service against two, behind nginx from the same template...');
  // The images list needs a user with images; the images-list scenario seeds the same one when it runs.
  if ((await storedImages(bench.imagesDatabaseUrl, 'bench_small')) === 0) await seedImageRows(bench.imagesDatabaseUrl, 'bench_small', mode.smallImages, log);

  const images2 = await startService(lifecycle, workDir, 'images-2', [process.execPath, '--heap-growing-percent=100', 'services/images/dist/src/main.js'], bench.imagesEnv);
  const tools2 = await startService(lifecycle, workDir, 'tools-2', [process.execPath, 'services/tools/dist/src/main.js'], bench.toolsEnv);
  const nginx2 = await startProjectNginx(lifecycle, path.join(workDir, 'nginx-2-replicas'), 'nginx (2 replicas)', {
    imagesUpstreams: [`127.0.0.1:${bench.images.port}`, `127.0.0.1:${images2.port}`],
    toolsUpstreams: [`127.0.0.1:${bench.tools.port}`, `127.0.0.1:${tools2.port}`],
    imagesPublicDir: path.join(bench.storageDir, 'public'),
    clientMaxBodySize: '64m',
  });
  // The second replicas' CPU counts as node, their main threads beside the first's.
  bench.roles['images node 2'] = 'node';
  bench.roles['tools node 2'] = 'node';
  const nginx2Group = treeGroup('nginx', () => nginx2.process);
  // One replica: the bench's own groups. Two: the same, with the second replica and the second nginx.
  const withTwo = (groups: ProcessGroup[], second: ProcessGroup): ProcessGroup[] => [...groups.filter((group) => group !== bench.nginxGroup), second, nginx2Group];
  const imagesTwo = withTwo(bench.imagesGroups, treeGroup('images node 2', () => images2.process));
  const toolsTwo = withTwo(bench.toolsGroups, treeGroup('tools node 2', () => tools2.process));

  const compare = (what: string, groups: [ProcessGroup[], ProcessGroup[]], options: (base: string) => LoadOptions, seconds: number, wrap = (side: Side) => side) =>
    bench.compare(`${what}, 1 replica`, wrap(bench.loadSide(groups[0], options(bench.front))), `${what}, 2 replicas`, wrap(bench.loadSide(groups[1], options(nginx2.baseUrl))), seconds);

  try {
    const listPaths = Array.from({ length: LIST_PAGES }, (_, i) => `/api/image.php?action=list&page=${i + 1}&limit=20`);
    const listRow = await compare(
      `images list, ${mode.smallImages.toLocaleString('en')} images (c=${mode.connections})`,
      [bench.imagesGroups, imagesTwo],
      (base) => ({ url: `${base}${listPaths[0]}`, paths: listPaths, connections: mode.connections, durationSec: mode.durationSec, headers: { 'x-api-token': bench.smallToken } }),
      mode.durationSec,
    );
    const toolsPaths = Array.from({ length: TOOLS_LIST_PAGES }, (_, i) => `/api/index.php?action=tools&page=${i + 1}&limit=20`);
    const toolsRow = await compare(
      `tools list (c=${mode.connections})`,
      [bench.toolsGroups, toolsTwo],
      (base) => ({ url: `${base}${toolsPaths[0]}`, paths: toolsPaths, connections: mode.connections, durationSec: mode.durationSec, headers: { 'x-api-key': bench.apiKey } }),
      mode.durationSec,
    );
    const rows = [listRow, toolsRow];
    // A smoke run shows the harness works: one photo size is enough.
    for (const size of mode.smoke ? uploads.sizes.slice(0, 1) : uploads.sizes) {
      const { next: body, contentType } = uniqueMultipartUploads('photo.jpg', 'image/jpeg', uploads.photos.get(size.label)!);
      // As in the upload scenario: each slice waits for the uploads still in flight, and checks every answer stored an image.
      const counted = (side: Side): Side => ({
        async warm() {
          await side.warm();
          await uploads.storedCount();
        },
        async slice(seconds) {
          const before = await uploads.storedCount();
          const slice = await side.slice(seconds);
          const stored = (await uploads.storedCount()) - before;
          if (stored < slice.requests) throw new Error(`replicas, upload ${size.label}: ${slice.requests} answers but only ${stored} images stored`);
          return slice;
        },
      });
      rows.push(
        await compare(
          `upload ${size.label} (c=${mode.uploadConnections})`,
          [bench.imagesGroups, imagesTwo],
          (base) => ({
            url: `${base}/api/image.php?action=upload`,
            method: 'POST',
            connections: mode.uploadConnections,
            ...(mode.smoke ? { amount: mode.uploadConnections * 2 } : {}),
            headers: { 'x-api-token': bench.uploadToken, 'content-type': contentType },
            body,
          }),
          mode.uploadSec,
          counted,
        ),
      );
    }
    bench.sections.push(summary(bench.rows, rows));
  } finally {
    await stopGroup(nginx2.process);
    await stopGroup(tools2.process);
    await stopGroup(images2.process);
  }
}

/** The scenario's figures side by side: req/s and CPU per request at one and two replicas. */
function summary(all: Row[], twoReplicaRows: Row[]): string {
  const lines = [
    'Replicas (scenario `replicas`): one replica of each service against two on this machine, behind nginx from the same template, in alternating slices:',
    '',
    '| requests | req/s, 1 replica | req/s, 2 replicas | 2 ÷ 1 | CPU ms per request, 1 replica | CPU ms per request, 2 replicas |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const two of twoReplicaRows) {
    const one = all.find((row) => row.name === two.baseline)!;
    const cpu = (m: Measured) => `${fixed(totalCpu(m), 3)} (node ${fixed(m.cpuMsPerRequest.node, 3)})`;
    lines.push(`| ${two.name.replace(/, 2 replicas$/, '')} | ${fixed(one.measured.rps, 0)} | ${fixed(two.measured.rps, 0)} | ${fixed(two.ratio, 2)}× | ${cpu(one.measured)} | ${cpu(two.measured)} |`);
  }
  return lines.join('\n');
}
