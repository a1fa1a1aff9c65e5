// `npm start` on a fresh clone: install dependencies first when they are missing.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

// vite and preact build the web app (services/images/web) that npm start serves at /app/; the kit's
// workspace link is missing in a checkout installed before packages/kit existed.
const needed = ['node_modules/tsx', 'node_modules/express', 'node_modules/sharp', 'node_modules/vite', 'node_modules/preact', 'node_modules/@platform/kit'];
if (!needed.every((p) => existsSync(p))) {
  console.log('[start] installing dependencies (npm install), once…');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
