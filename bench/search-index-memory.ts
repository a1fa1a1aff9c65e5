/**
 * The in-memory search index at 10,000 tools, without a database or HTTP: how long it takes to build and
 * to rebuild after one edit, and what it keeps (V8 heap and array buffers after forced collections, and the
 * process's resident set). The directory is the search scenario's generated one.
 *
 *   node --expose-gc --import tsx bench/search-index-memory.ts [catalog source folder] [tools]
 *
 * The folder (default services/tools/src/catalog) lets the same command measure an older checkout's index.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generatedSearchSnapshot, generateToolDirectory } from '../services/tools/src/catalog/search-generated-directory';
import type { SearchSnapshot } from '../services/tools/src/catalog/search-engine';

const folder = path.resolve(process.argv[2] ?? path.join(__dirname, '../services/tools/src/catalog'));
const size = Number(process.argv[3] ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx');

function memory() {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed / 2 ** 20, buffers: usage.arrayBuffers / 2 ** 20, rss: usage.rss / 2 ** 20 };
}

async function main() {
  const { createSearchEngine } = (await import(path.join(folder, 'search-engine'))) as typeof import('../services/tools/src/catalog/search-engine');
  let snapshot: SearchSnapshot = generatedSearchSnapshot(generateToolDirectory(size));
  const before = memory();
  const engine = createSearchEngine({
    readRevision: async () => snapshot.revision,
    loadSnapshot: async () => snapshot,
    loadVisits: async () => new Map(),
    visitsRefreshMs: Number.MAX_SAFE_INTEGER,
    now: Date.now,
  });
  let started = performance.now();
  await engine.refresh();
  const buildMs = performance.now() - started;
  const built = memory();
  snapshot = { ...snapshot, revision: 2, tools: snapshot.tools.map((tool, i) => (i === 5 ? { ...tool, description: `${tool.description} 改` } : tool)) };
  started = performance.now();
  await engine.refresh();
  const rebuildMs = performance.now() - started;
  const rebuilt = memory();
  const kept = rebuilt.heap + rebuilt.buffers - before.heap - before.buffers;
  process.stdout.write(
    `${path.relative(process.cwd(), folder) || folder} at ${size.toLocaleString('en')} tools: build ${(buildMs / 1000).toFixed(1)} s, rebuild after one edit ${(rebuildMs / 1000).toFixed(1)} s; ` +
      `search state ${kept.toFixed(0)} MB (heap ${rebuilt.heap.toFixed(0)} MB + array buffers ${rebuilt.buffers.toFixed(0)} MB, of which the snapshot ${(before.heap + before.buffers).toFixed(0)} MB); ` +
      `RSS ${rebuilt.rss.toFixed(0)} MB after the rebuild (${built.rss.toFixed(0)} MB after the first build)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
