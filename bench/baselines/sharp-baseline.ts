/**
 * The physical reference beside target 2 (whose baseline is minimal-upload-server.ts): the upload's work done by bare sharp in one process, without HTTP, database or
 * multipart: validate and read the metadata, make the 400×400 WebP thumbnail, and write the original
 * and the thumbnail durably (temp name, fsync, rename, fsync of the folder), CONCURRENCY at a time,
 * for DURATION_SEC seconds. Prints one JSON line: {"operations":n,"seconds":s,"cpuMs":..,"mainThreadCpuMs":..,"latenciesMs":[..]}
 * (the process's CPU during the operations, libvips' threads included; each operation's latency).
 * The sharp steps are bare-sharp-steps.ts's, the writes durable-files.ts's.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { mainThreadCpuMs } from '../lib/proc';
import { bareSharpSteps } from './bare-sharp-steps';
import { syncDir, writeDurably } from './durable-files';

const input = readFileSync(process.env.IMAGE_FILE!);
const outDir = process.env.OUT_DIR!;
const concurrency = Number(process.env.CONCURRENCY ?? 4);
const durationMs = Number(process.env.DURATION_SEC ?? 5) * 1000;
mkdirSync(outDir, { recursive: true });

async function uploadOnce(): Promise<void> {
  const { format, thumbnail } = await bareSharpSteps(input);
  const name = randomBytes(16).toString('hex');
  const original = path.join(outDir, `${name}.${format}`);
  const thumb = path.join(outDir, `${name}.thumb.webp`);
  await writeDurably(original, input);
  await writeDurably(thumb, thumbnail);
  await syncDir(outDir);
}

async function main(): Promise<void> {
  // Not timed: the first operation loads libvips' codecs (the service it is compared with is warm).
  await uploadOnce();
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  const mainThreadBefore = mainThreadCpuMs(process.pid)!;
  const started = Date.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const t0 = performance.now();
        await uploadOnce();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const mainThread = mainThreadCpuMs(process.pid)! - mainThreadBefore;
  process.stdout.write(`${JSON.stringify({ operations: latencies.length, seconds, cpuMs: (cpu.user + cpu.system) / 1000, mainThreadCpuMs: mainThread, latenciesMs: latencies })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
