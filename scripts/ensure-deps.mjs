// `npm start` on a fresh clone: check the Node version, then install dependencies when they are missing.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

// package.json's engines: production images run Node 24 (.nvmrc); 22.12+ and 20.19+ still run
// everything here (both load ES modules through require, which the dependencies need).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19) || (major === 22 && minor < 12) || major === 21 || major === 23) {
  console.error(`[start] Node ${process.versions.node} is not supported: install Node 24 (the version in .nvmrc; 22.12+ and 20.19+ also work)`);
  process.exit(1);
}
if (major < 22) {
  console.log(`[start] Node ${process.versions.node}: Node 20 reached end of life on 2026-04-30; production images run Node 24 (.nvmrc)`);
}

// vite and preact build the web app (services/images/web) that npm start serves at /app/; the kit's
// workspace link is missing in a checkout installed before packages/kit existed.
const needed = ['node_modules/tsx', 'node_modules/express', 'node_modules/sharp', 'node_modules/vite', 'node_modules/preact', 'node_modules/@platform/kit'];
if (!needed.every((p) => existsSync(p))) {
  console.log('[start] installing dependencies (npm install), once…');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
