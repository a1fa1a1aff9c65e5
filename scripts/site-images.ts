/**
 * `npx tsx scripts/site-images.ts`: draws the website's raster images from its SVG logo with Debian's
 * Chromium, into services/tools/src/site/assets/ (committed; run again after changing the logo):
 * favicon.ico (16, 32 and 48 px PNGs in one ICO), icon-192.png and icon-512.png for the web manifest and
 * home screens, and og-image.png (1200×630), the card chat apps and social sites show for a shared link.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const ASSETS = path.resolve(__dirname, '..', 'services', 'tools', 'src', 'site', 'assets');
const svg = readFileSync(path.join(ASSETS, 'icon.svg'), 'utf8');
const logo = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

/** An ICO file holding PNG images (read by every browser since IE Vista-era ICO readers). */
function icoOf(images: { size: number; png: Buffer }[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // 1 = icon
  header.writeUInt16LE(images.length, 4);
  const entries: Buffer[] = [];
  let offset = 6 + 16 * images.length;
  for (const { size, png } of images) {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size >= 256 ? 0 : size, 0);
    entry.writeUInt8(size >= 256 ? 0 : size, 1);
    entry.writeUInt16LE(1, 4); // colour planes
    entry.writeUInt16LE(32, 6); // bits per pixel
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    entries.push(entry);
  }
  return Buffer.concat([header, ...entries, ...images.map((image) => image.png)]);
}

const OG_HTML = `<!doctype html><html><head><meta charset="utf-8"><style>
  body { margin: 0; width: 1200px; height: 630px; display: flex; align-items: center; justify-content: center;
    font-family: "Noto Sans CJK SC", "Noto Sans SC", system-ui, sans-serif; color: #fff;
    background: radial-gradient(900px 500px at 80% -10%, #7c3aed 0%, rgba(124, 58, 237, 0) 70%), linear-gradient(135deg, #312e81, #4f46e5); }
  .card { display: flex; align-items: center; gap: 56px; }
  img { width: 220px; height: 220px; border-radius: 48px; box-shadow: 0 24px 60px rgba(0, 0, 0, 0.3); }
  h1 { margin: 0; font-size: 96px; letter-spacing: 4px; }
  p { margin: 12px 0 0; font-size: 40px; opacity: 0.9; }
  .en { font-size: 34px; opacity: 0.75; letter-spacing: 1px; }
</style></head><body><div class="card"><img src="${logo}" alt=""><div><h1>工具导航</h1><p>精选实用工具与软件</p><p class="en">Tool Directory</p></div></div></body></html>`;

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    const draw = async (size: number): Promise<Buffer> => {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(`<html><body style="margin:0"><img src="${logo}" width="${size}" height="${size}" style="display:block"></body></html>`);
      return page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    };
    const small = [];
    for (const size of [16, 32, 48]) small.push({ size, png: await draw(size) });
    writeFileSync(path.join(ASSETS, 'favicon.ico'), icoOf(small));
    writeFileSync(path.join(ASSETS, 'icon-192.png'), await draw(192));
    writeFileSync(path.join(ASSETS, 'icon-512.png'), await draw(512));
    await page.setViewportSize({ width: 1200, height: 630 });
    await page.setContent(OG_HTML);
    writeFileSync(path.join(ASSETS, 'og-image.png'), await page.screenshot({ clip: { x: 0, y: 0, width: 1200, height: 630 } }));
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`site images failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
