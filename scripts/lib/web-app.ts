/**
 * The image web app (services/images/web) as the platform serves it at /app/: its build, made on
 * demand when missing or stale, and the same answers nginx gives (proxy/nginx.conf.template).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';

const ROOT = path.resolve(__dirname, '..', '..');
export const WEB_APP_SOURCE_DIR = path.join(ROOT, 'services', 'images', 'web');
/** Vite's output: index.html and assets/<name>-<hash>.<ext>. Not committed; built by `npm start`, the tests and the proxy image. */
export const WEB_APP_BUILD_DIR = path.join(WEB_APP_SOURCE_DIR, 'dist');
/** The sources' digest the build was made from (outside assets/, so never served). */
const STAMP_FILE = '.source-hash';

/**
 * Headers of every /app/ answer, the same from nginx and the front door. Scripts and styles only as
 * files from this origin (no inline ones, no eval); Trusted Types required, so no string can become
 * HTML or script (Preact writes text nodes). Images may come from PUBLIC_BASE_URL, whatever its host.
 */
export const WEB_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: https: http:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

export const WEB_APP_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': WEB_APP_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
});

/** Hashed asset names change with their content: cached for a year. index.html is revalidated every time. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
export const INDEX_CACHE_CONTROL = 'no-cache';

function sourceFiles(dir: string, relative = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
    const name = path.join(relative, entry.name);
    if (entry.isDirectory()) {
      if (relative === '' && (entry.name === 'dist' || entry.name === 'test' || entry.name === 'node_modules')) continue;
      found.push(...sourceFiles(dir, name));
    } else {
      found.push(name);
    }
  }
  return found;
}

/** A digest of everything the build reads: the app's files and the versions of its build tools. */
export function webAppSourceHash(sourceDir = WEB_APP_SOURCE_DIR): string {
  const hash = createHash('sha256');
  for (const file of sourceFiles(sourceDir).sort()) {
    hash.update(file).update('\0').update(readFileSync(path.join(sourceDir, file))).update('\0');
  }
  for (const tool of ['vite', 'preact']) {
    hash.update(`${tool}@${(JSON.parse(readFileSync(require.resolve(`${tool}/package.json`), 'utf8')) as { version: string }).version}\0`);
  }
  return hash.digest('hex');
}

export function webAppIsCurrent(buildDir = WEB_APP_BUILD_DIR): boolean {
  const stamp = path.join(buildDir, STAMP_FILE);
  return existsSync(path.join(buildDir, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === webAppSourceHash();
}

/**
 * Moves a finished build into WEB_APP_BUILD_DIR without a moment in which a page being served has
 * no assets: the new hashed assets join the old ones first, then index.html is swapped in by one
 * rename. Earlier builds' assets stay until the folder is removed (they are small, and a page
 * loaded before the swap may still ask for them).
 */
function publishBuild(stagingDir: string, hash: string): void {
  const assets = path.join(WEB_APP_BUILD_DIR, 'assets');
  mkdirSync(assets, { recursive: true });
  // Public files, which nginx serves as another user, whatever the umask of the process publishing them (npm start's is owner-only).
  chmodSync(assets, 0o755);
  for (const file of readdirSync(path.join(stagingDir, 'assets'))) renameSync(path.join(stagingDir, 'assets', file), path.join(assets, file));
  renameSync(path.join(stagingDir, 'index.html'), path.join(WEB_APP_BUILD_DIR, 'index.html'));
  writeFileSync(path.join(WEB_APP_BUILD_DIR, STAMP_FILE), hash);
}

/** Runs `vite build` for the app; resolves when the output is in place (with its stamp), rejects with Vite's output. */
export function buildWebApp(options: { onOutput?: (text: string) => void; reportSizes?: boolean } = {}): Promise<void> {
  const vite = path.join(path.dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  const hash = webAppSourceHash();
  // Built beside the served files (inside dist/, which the digest and the servers leave alone), then published.
  mkdirSync(WEB_APP_BUILD_DIR, { recursive: true });
  const stagingDir = mkdtempSync(path.join(WEB_APP_BUILD_DIR, '.building-'));
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [vite, 'build', WEB_APP_SOURCE_DIR, '--outDir', stagingDir, '--emptyOutDir', '--logLevel', options.reportSizes ? 'info' : 'warn'], {
      cwd: ROOT,
      // A production bundle whatever the caller's NODE_ENV (jest sets "test").
      env: { ...process.env, NODE_ENV: 'production', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      options.onOutput?.(chunk.toString());
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`vite build of the web app failed (exit ${code}):\n${output}`));
        return;
      }
      try {
        publishBuild(stagingDir, hash);
        resolve();
      } catch (error) {
        reject(error);
      }
    });
  }).finally(() => rmSync(stagingDir, { recursive: true, force: true }));
}

/** Builds the web app unless the build is current; says which. */
export async function ensureWebAppBuilt(options: { onBuild?: () => void } = {}): Promise<'current' | 'built'> {
  if (webAppIsCurrent()) return 'current';
  options.onBuild?.();
  await buildWebApp();
  return 'built';
}

const NOT_FOUND = { success: false, error: { code: 404, message: '资源不存在' } };

/**
 * /app/ as nginx serves it: `assets/*` from the build with a year's immutable caching (a missing one
 * is a 404, never the page, so a stale hashed name is not cached as HTML); every other path under
 * /app/ is index.html (the app's own routes), revalidated on each load; `/app` redirects to `/app/`.
 */
export function createWebAppRouter(buildDir: string): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const security = (res: express.Response) => res.set(WEB_APP_HEADERS);

  router.get('/app', (req, res) => {
    const query = req.originalUrl.slice(req.path.length);
    res.redirect(301, `/app/${query}`);
  });
  router.use(
    '/app/assets',
    express.static(path.join(buildDir, 'assets'), {
      index: false,
      dotfiles: 'deny',
      fallthrough: true,
      redirect: false,
      cacheControl: false,
      setHeaders: (res) => {
        security(res as express.Response);
        res.setHeader('Cache-Control', ASSET_CACHE_CONTROL);
      },
    }),
  );
  router.use('/app/assets', (_req, res) => {
    res.status(404).json(NOT_FOUND);
  });
  router.get(/^\/app\//, (_req, res, next) => {
    const index = path.join(buildDir, 'index.html');
    security(res);
    res.sendFile(index, { headers: { 'Cache-Control': INDEX_CACHE_CONTROL, 'Content-Type': 'text/html; charset=utf-8' }, cacheControl: false }, (error) => {
      if (!error) return;
      if (res.headersSent) return next(error);
      // Only when the build is missing: npm start builds it before it serves anything.
      res.status(503).type('text/plain').send('The web app is not built: npm run build:web\n');
    });
  });
  return router;
}
