import { ASSET_CACHE_CONTROL, INDEX_CACHE_CONTROL, WEB_APP_HEADERS } from '../lib/web-app';

/** The hashed files index.html loads (script, stylesheet, icon), as absolute paths under /app/assets/. */
export function assetsOfIndex(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]!);
}

function expectSecurityHeaders(res: Response, what: string): void {
  for (const [name, value] of Object.entries(WEB_APP_HEADERS)) {
    expect([what, name, res.headers.get(name)]).toEqual([what, name, value]);
  }
}

/**
 * What /app/ must answer, from nginx or from the embedded front door alike: index.html for every app
 * path, revalidated on each load; hashed assets cached for a year; a missing asset a 404 (not the
 * page); the CSP and security headers everywhere; no inline script.
 */
export async function expectWebAppAnswers(baseUrl: string): Promise<void> {
  const index = await fetch(`${baseUrl}/app/`);
  expect(index.status).toBe(200);
  expect(index.headers.get('content-type')).toMatch(/^text\/html/);
  expect(index.headers.get('cache-control')).toBe(INDEX_CACHE_CONTROL);
  expectSecurityHeaders(index, '/app/');
  const html = await index.text();
  expect(html).toContain('<div id="app"></div>');
  // Every script is a file (the CSP allows no inline one), and the entry has a hashed name.
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes, body] of scripts) {
    expect(attributes).toMatch(/src="\/app\/assets\/[\w.-]+-[\w-]{8}\.js"/);
    expect(body).toBe('');
  }
  expect(html).not.toMatch(/<style\b|\sstyle="|\son[a-z]+="/i);

  // The app's own routes are the same page.
  for (const route of ['/app/gallery', '/app/account', '/app/bin?x=1']) {
    const page = await fetch(`${baseUrl}${route}`);
    expect([route, page.status, page.headers.get('cache-control')]).toEqual([route, 200, INDEX_CACHE_CONTROL]);
    expectSecurityHeaders(page, route);
    expect(await page.text()).toBe(html);
  }

  const assets = assetsOfIndex(html);
  expect(assets.some((asset) => asset.endsWith('.js'))).toBe(true);
  expect(assets.some((asset) => asset.endsWith('.css'))).toBe(true);
  const types: Record<string, RegExp> = { js: /^(text|application)\/javascript/, css: /^text\/css/, svg: /^image\/svg\+xml/ };
  for (const asset of assets) {
    const res = await fetch(`${baseUrl}${asset}`);
    expect([asset, res.status, res.headers.get('cache-control')]).toEqual([asset, 200, ASSET_CACHE_CONTROL]);
    expect(res.headers.get('content-type')).toMatch(types[asset.split('.').pop()!]!);
    expectSecurityHeaders(res, asset);
    await res.arrayBuffer();
  }

  // A hashed name that is not there is a 404, never index.html cached for a year.
  const missing = await fetch(`${baseUrl}/app/assets/index-00000000.js`);
  expect(missing.status).toBe(404);
  expect(missing.headers.get('content-type')).not.toMatch(/html/);
  expect(missing.headers.get('cache-control')).not.toBe(ASSET_CACHE_CONTROL);

  const bare = await fetch(`${baseUrl}/app`, { redirect: 'manual' });
  expect(bare.status).toBe(301);
  expect(new URL(bare.headers.get('location')!, baseUrl).pathname).toBe('/app/');
}
