/**
 * /app/ is answered by nginx (proxy/nginx.conf.template) in production and by the front door
 * (scripts/lib/web-app.ts) under npm start. Their header values are written twice, so this holds
 * them equal; through-nginx.test.ts then checks nginx's real answers with the same expectations.
 */
import { readFileSync } from 'node:fs';
import { NGINX_TEMPLATE_FILE } from '../lib/nginx-template';
import { ASSET_CACHE_CONTROL, INDEX_CACHE_CONTROL, WEB_APP_HEADERS } from '../lib/web-app';

/** The `add_header NAME VALUE` lines of one location block, as a name → value map. */
function headersOfLocation(template: string, location: string): Record<string, string> {
  const start = template.indexOf(`location ${location} {`);
  if (start < 0) throw new Error(`location ${location} not found in the nginx template`);
  const block = template.slice(start, template.indexOf('\n    }', start));
  const headers: Record<string, string> = {};
  for (const match of block.matchAll(/^\s*add_header ([\w-]+) ("[^"]*"|\S+)(?: always)?;$/gm)) {
    headers[match[1]!] = match[2]!.replace(/^"|"$/g, '');
  }
  return headers;
}

describe('the web app headers of nginx and the front door', () => {
  const template = readFileSync(NGINX_TEMPLATE_FILE, 'utf8');

  test('when the nginx template serves index.html and the assets, then each sends exactly the front door\'s security headers and cache policy', () => {
    const expected = { ...WEB_APP_HEADERS, 'X-Request-Id': '$request_id' };
    expect(headersOfLocation(template, '= /app/index.html')).toEqual({ ...expected, 'Cache-Control': INDEX_CACHE_CONTROL });
    expect(headersOfLocation(template, '^~ /app/assets/')).toEqual({ ...expected, 'Cache-Control': ASSET_CACHE_CONTROL });
  });

  test('when the CSP is read, then it allows no inline script or style, no eval, no framing, and requires Trusted Types', () => {
    const directives = Object.fromEntries(WEB_APP_HEADERS['Content-Security-Policy']!.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['require-trusted-types-for']).toEqual(["'script'"]);
  });
});
