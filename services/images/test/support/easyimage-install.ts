import fs from 'node:fs';
import path from 'node:path';

/** A PHP value as EasyImage's arrayeval() writes it: `Array\n\t(\n\t'key'=>'value',\n...\t)`. */
export function phpArray(value: unknown, level = 0): string {
  const tabs = '\t'.repeat(level + 1);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => `${tabs}${/^\d+$/.test(key) ? key : phpString(key)}=>${phpArray(item, level + 1)}`);
    return `Array\n${tabs}(\n${entries.join(',\n')}\n${tabs})`;
  }
  if (typeof value === 'number') return String(value);
  return phpString(String(value));
}

const phpString = (text: string) => `'${text.replace(/[\\']/g, (character) => `\\${character}`)}'`;

/** A data file as EasyImage's cache_write() leaves it. */
export function writePhpData(file: string, variable: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `<?php\r\n$${variable}=${phpArray(value)};`);
}

export interface InstalledUpload {
  /** Path under the install, `i/2024/01/02/abc.png`. */
  at: string;
  bytes: Buffer;
  /** The upload log entry EasyImage wrote (with upload_logs on). */
  log?: { source: string; date: string };
}

/**
 * An EasyImage 2.x install as it lays out its data: config/config.php, config/api_key.php, the upload
 * tree under `path` (i/YYYY/MM/DD/), thumbnails in i/cache/, and admin/logs/upload/YYYY-MM.php.
 */
export function writeEasyImageInstall(dir: string, options: { tokens: Record<string, { id: number; expired: number; add_time: number }>; uploads: InstalledUpload[] }): void {
  writePhpData(path.join(dir, 'config', 'config.php'), 'config', {
    title: '简单图床 - EasyImage',
    domain: 'http://127.0.0.1',
    imgurl: 'http://127.0.0.1',
    user: 'admin',
    password: '7676aaafb027c825bd9abab78b234070e702752f625b752e55e55b48e607e358',
    path: '/i/',
    storage_path: 'Y/m/d/',
    maxSize: 10485760,
    upload_logs: 1,
    timezone: 'Asia/Shanghai',
    public_list: ['time', 'today'],
    admin_path: 'u',
  });
  writePhpData(path.join(dir, 'config', 'api_key.php'), 'tokenList', options.tokens);
  const logsByMonth = new Map<string, Record<string, unknown>>();
  for (const upload of options.uploads) {
    const file = path.join(dir, upload.at);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, upload.bytes);
    if (!upload.log) continue;
    const month = upload.log.date.slice(0, 7);
    const logs = logsByMonth.get(month) ?? {};
    logs[path.basename(upload.at)] = { source: upload.log.source, date: upload.log.date, ip: '127.0.0.1', port: '51234', user_agent: 'curl/8', path: `/${upload.at}`, size: '1 KB', md5: 'x', checkImg: 'OFF', from: 'web' };
    logsByMonth.set(month, logs);
  }
  for (const [month, logs] of logsByMonth) writePhpData(path.join(dir, 'admin', 'logs', 'upload', `${month}.php`), 'logs', logs);
  // Not uploads: a thumbnail and a file held by the content check.
  fs.mkdirSync(path.join(dir, 'i', 'cache'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'i', 'cache', '2024_01_02_abc.png'), 'thumbnail');
  fs.mkdirSync(path.join(dir, 'i', 'suspic'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'i', 'suspic', '2024_01_02_held.png'), 'held');
}
