/**
 * The app's first load must stay small: the JavaScript index.html loads (its entry script and the
 * modules it preloads), gzipped, under 150 KB. Read from the build the tests serve.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { WEB_APP_BUILD_DIR } from '../../../../scripts/lib/web-app';

const BUDGET_BYTES = 150 * 1024;

test('when index.html is loaded, then the JavaScript it pulls in is under 150 KB gzipped', () => {
  const html = readFileSync(path.join(WEB_APP_BUILD_DIR, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script[^>]+src="\/app\/([^"]+\.js)"/g), ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/app\/([^"]+\.js)"/g)].map((match) => match[1]!);
  expect(scripts.length).toBeGreaterThan(0);
  const gzipped = scripts.reduce((sum, file) => sum + gzipSync(readFileSync(path.join(WEB_APP_BUILD_DIR, file)), { level: 9 }).length, 0);
  process.stdout.write(`first-load JavaScript: ${scripts.join(', ')} = ${(gzipped / 1024).toFixed(1)} KB gzipped (budget 150 KB)\n`);
  expect(gzipped).toBeLessThan(BUDGET_BYTES);
});
