/**
 * The media share of an upload, one at a time in one process, with no HTTP, database or disk writes:
 * STEPS=bare runs bare-sharp-steps.ts, as sharp-baseline.ts does (metadata, then the 400×400 WebP
 * thumbnail, from the bytes in memory); STEPS=service runs the images service's media module on the same photo's
 * bytes in memory, as an upload received into memory does (inspect, prepare: the metadata strip,
 * makeThumbnail), from the built JS. Runs for DURATION_SEC seconds, or OPERATIONS operations, and prints one JSON line:
 * {"operations":n,"seconds":s,"cpuMs":..,"mainThreadCpuMs":..,"latenciesMs":[..]} (the process's CPU during the operations,
 * libvips' threads included; each operation's latency).
 */
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { mainThreadCpuMs } from '../lib/proc';
import { bareSharpSteps } from './bare-sharp-steps';

const file = process.env.IMAGE_FILE!;
const workDir = process.env.OUT_DIR!;
const steps = process.env.STEPS;
const durationMs = Number(process.env.DURATION_SEC ?? 5) * 1000;
const maxOperations = Number(process.env.OPERATIONS ?? Number.POSITIVE_INFINITY);
const bytes = readFileSync(file);

// The built JS, as the service runs it (the bench builds it first; the bench runs from the repository root).
type MediaModule = typeof import('../../services/images/src/media/media-processor');
const { createMediaProcessor } = createRequire(path.resolve('package.json'))(path.resolve('services/images/dist/src/media/media-processor.js')) as MediaModule;

function serviceSteps(): () => Promise<void> {
  const media = createMediaProcessor();
  let made = 0;
  return async () => {
    const facts = await media.inspect(bytes);
    const prepared = await media.prepare(bytes, facts, { keepMetadata: false, tempPath: () => path.join(workDir, `prepared-${made++}`) });
    await media.makeThumbnail(prepared.input, { ...facts, format: prepared.format }, prepared.size);
    if (typeof prepared.input === 'string') rmSync(prepared.input); // a rendition's file
  };
}

async function main(): Promise<void> {
  if (steps !== 'bare' && steps !== 'service') throw new Error('STEPS must be bare or service');
  const once =
    steps === 'bare'
      ? async () => {
          await bareSharpSteps(bytes);
        }
      : serviceSteps();
  await once(); // warm: the first run loads libvips' codecs
  const started = Date.now();
  const cpuBefore = process.cpuUsage();
  const mainThreadBefore = mainThreadCpuMs(process.pid)!;
  const latencies: number[] = [];
  while (Date.now() - started < durationMs && latencies.length < maxOperations) {
    const t0 = performance.now();
    await once();
    latencies.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const mainThread = mainThreadCpuMs(process.pid)! - mainThreadBefore;
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ operations: latencies.length, seconds, cpuMs: (cpu.user + cpu.system) / 1000, mainThreadCpuMs: mainThread, latenciesMs: latencies })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
