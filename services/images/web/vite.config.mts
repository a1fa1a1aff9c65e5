import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/**
 * theme-boot.js as a blocking classic script first in <head>, so the theme chosen in this browser is
 * set before the first paint. A file (the CSP refuses inline scripts) under assets/ with a content
 * hash in its name, like every other script the page loads.
 */
function themeBoot(): Plugin {
  const source = readFileSync(fileURLToPath(new URL('./src/theme-boot.js', import.meta.url)), 'utf8');
  const fileName = `assets/theme-boot-${createHash('sha256').update(source).digest('hex').slice(0, 8)}.js`;
  let serving = false;
  return {
    name: 'theme-boot',
    configResolved(config) {
      serving = config.command === 'serve';
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source });
    },
    transformIndexHtml() {
      return [{ tag: 'script', attrs: { src: serving ? '/app/src/theme-boot.js' : `/app/${fileName}` }, injectTo: 'head' }];
    },
  };
}

/**
 * The image web app, served at /app/ by nginx and by `npm start`'s front door from `dist/`.
 * Asset names carry a content hash (assets/<name>-<hash>.js), so they are cached for a year;
 * index.html is revalidated on every load.
 */
export default defineConfig({
  base: '/app/',
  plugins: [themeBoot()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2020',
    // The polyfill would be an inline script, which the Content-Security-Policy refuses; every
    // browser the app supports preloads modules itself.
    modulePreload: { polyfill: false },
    // Icons stay files too: a data: URL would need a wider CSP than 'self'.
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
  server: {
    // `npx vite services/images/web` while `npm start` runs: the API comes from the platform.
    proxy: { '/api': 'http://localhost:8080', '/i': 'http://localhost:8080' },
  },
});
