import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The website's static files (next to this module in src/ and, copied by the build, in dist/). */
export const ASSETS_DIR = path.join(__dirname, 'assets');

const FILES = [
  { name: 'site.css', type: 'text/css; charset=utf-8' },
  { name: 'site.js', type: 'text/javascript; charset=utf-8' },
  { name: 'theme.js', type: 'text/javascript; charset=utf-8' },
  { name: 'icon.svg', type: 'image/svg+xml' },
  { name: 'favicon.ico', type: 'image/x-icon' },
  { name: 'icon-192.png', type: 'image/png' },
  { name: 'icon-512.png', type: 'image/png' },
  { name: 'og-image.png', type: 'image/png' },
] as const;

export type AssetName = (typeof FILES)[number]['name'];

export interface Asset {
  body: Buffer;
  type: string;
}

/**
 * Loads the static files once and names each after its content (`site.3f9a1c2b.css`), so they can be
 * cached for a year: a changed file gets a new name, and pages link to the new one.
 */
export function loadSiteAssets(dir = ASSETS_DIR) {
  const byName = new Map<string, Asset>();
  const urls = {} as Record<AssetName, string>;
  for (const file of FILES) {
    const body = readFileSync(path.join(dir, file.name));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const extension = path.extname(file.name);
    const hashedName = `${path.basename(file.name, extension)}.${hash}${extension}`;
    byName.set(hashedName, { body, type: file.type });
    urls[file.name] = `/assets/${hashedName}`;
  }
  return {
    /** The URL pages use for a file. */
    url(name: AssetName): string {
      return urls[name];
    },
    /** A file by its own name (/favicon.ico is asked for under that name, by browsers that read no page). */
    file(name: AssetName): Asset {
      return byName.get(urls[name].slice('/assets/'.length))!;
    },
    /** The file behind a hashed name, or undefined (an old hash, an unknown name). */
    find(hashedName: string): Asset | undefined {
      return byName.get(hashedName);
    },
  };
}

export type SiteAssets = ReturnType<typeof loadSiteAssets>;
