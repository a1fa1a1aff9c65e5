import { defineConfig } from 'vite';

/**
 * The image web app, served at /app/ by nginx and by `npm start`'s front door from `dist/`.
 * Asset names carry a content hash (assets/<name>-<hash>.js), so they are cached for a year;
 * index.html is revalidated on every load.
 */
export default defineConfig({
  base: '/app/',
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
