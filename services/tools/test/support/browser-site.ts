import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Serves `handler` on a free loopback port; `base` is its origin. */
export async function listenOnLoopback(handler: http.RequestListener): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Where the admin's screenshots go: ADMIN_SCREENSHOT_DIR (docs/screenshots when regenerating them), else a temp folder. */
export function adminScreenshotDir(tempPrefix: string): string {
  const dir = process.env.ADMIN_SCREENSHOT_DIR ? path.resolve(process.env.ADMIN_SCREENSHOT_DIR) : fs.mkdtempSync(path.join(os.tmpdir(), tempPrefix));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
